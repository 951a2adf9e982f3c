/**
 * The judging half of the peer bench: HaluEval QA triplets (the development file `qa_one_turn.jsonl`;
 * each row gives two triplets, its right answer, label 1, and its hallucinated one, label 0) judged for
 * faithfulness / groundedness and answer relevancy by ragwatch's LLM judge, RAGAS (Faithfulness,
 * AnswerRelevancy — ResponseRelevancy before 0.4) and DeepEval (FaithfulnessMetric, AnswerRelevancyMetric),
 * one tool after the other against the same model on the same OpenAI-compatible server, every call
 * through one counting proxy (bench/peers/llm-proxy.ts); and ragwatch's embedded judge (no LLM).
 */
import { auc as rankAuc } from '../../src/calibration/measures.ts';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedJudge } from '../../src/judges/embedded/embedded-judge.ts';
import { LlmJudge } from '../../src/judges/llm/llm-judge.ts';
import type { SentenceEmbedder } from '../../src/judges/types.ts';
import type { SampledTriplet } from '../../src/triplet.ts';
import type { LlmProxy, Tally } from './llm-proxy.ts';

/** One triplet of the set, with its label. */
export interface LabelledTriplet {
  id: string;
  row: number;
  label: 0 | 1;
  question: string;
  contexts: string[];
  answer: string;
}

interface Row {
  knowledge: string;
  question: string;
  right_answer: string;
  hallucinated_answer: string;
}

/** The first `n` triplets (n/2 rows, both answers of each) of the HaluEval development file. */
export function haluevalTriplets(file: string, n: number): LabelledTriplet[] {
  const rows = readFileSync(file, 'utf8').trim().split('\n').slice(0, Math.ceil(n / 2)).map((l) => JSON.parse(l) as Row);
  return rows.flatMap((r, row) => [
    { id: `h${row}-right`, row, label: 1 as const, question: r.question, contexts: [r.knowledge], answer: r.right_answer },
    { id: `h${row}-hallucinated`, row, label: 0 as const, question: r.question, contexts: [r.knowledge], answer: r.hallucinated_answer },
  ]).slice(0, n);
}

/** One tool's judgments: per triplet a score per metric (undefined: failed or unparseable). */
export interface ToolRun {
  tool: string;
  /** Its metric names for faithfulness / groundedness and answer relevancy. */
  metrics: { faithfulness: string; relevancy: string };
  scores: Map<string, Record<string, number | undefined>>;
  tally: Tally;
  wallS: number;
  /** Why judgments failed (first few). */
  errors: string[];
}

const sampled = (t: LabelledTriplet): SampledTriplet => ({
  id: t.id, traceId: t.id, spanId: 's', service: 'peer-bench', timestamp: new Date(0).toISOString(), query: t.question,
  sources: t.contexts.map((content) => ({ content })), response: t.answer, latency: { durationMs: 0 }, convention: 'custom',
  sampling: { weight: 1, stratum: 'all', rule: 'all' },
});

/** ragwatch's LLM judge through the proxy (its caches as deployed: source facts are shared by a row's two answers). */
export async function runRagwatchLlm(triplets: LabelledTriplet[], proxy: LlmProxy, model: string, embedder: SentenceEmbedder): Promise<ToolRun> {
  const judge = new LlmJudge({ baseUrl: proxy.baseUrl, apiKey: 'peer-bench', model, embedder, maxConcurrentRequests: 1 });
  await judge.init();
  const tally = proxy.count('ragwatch');
  const scores = new Map<string, Record<string, number | undefined>>();
  const errors: string[] = [];
  const t0 = performance.now();
  for (const t of triplets) {
    const r = await judge.score(sampled(t));
    if (r.ok) {
      scores.set(t.id, r.scores as Record<string, number | undefined>);
      // A metric skipped (e.g. no claims in a two-word answer) is a judgment without a score: say why.
      for (const m of ['groundedness', 'response_precision']) if (r.scores[m] === undefined && errors.length < 5) errors.push(`${t.id} ${m} skipped: ${JSON.stringify(r.skipped[m])}`);
    } else {
      scores.set(t.id, {});
      if (errors.length < 5) errors.push(r.error.message.slice(0, 300));
    }
    process.stderr.write(`peers judging ragwatch: ${scores.size}/${triplets.length} (${tally.calls} calls)\n`);
  }
  const wallS = (performance.now() - t0) / 1000;
  await judge.shutdown();
  // THELMA's response precision (the share of the answer's claims relevant to the question) is what
  // DeepEval's AnswerRelevancyMetric computes; the LLM judge has no metric named answer_relevancy.
  return { tool: 'ragwatch', metrics: { faithfulness: 'groundedness', relevancy: 'response_precision' }, scores, tally: { ...tally }, wallS, errors };
}

/** ragwatch's embedded judge (no LLM: the bundled sentence model and the lexical grounding check). */
export async function runRagwatchEmbedded(triplets: LabelledTriplet[]): Promise<ToolRun> {
  const judge = new EmbeddedJudge();
  await judge.init();
  const scores = new Map<string, Record<string, number | undefined>>();
  const errors: string[] = [];
  const t0 = performance.now();
  for (const t of triplets) {
    const r = await judge.score(sampled(t));
    scores.set(t.id, r.ok ? (r.scores as Record<string, number | undefined>) : {});
    if (!r.ok && errors.length < 5) errors.push(r.error.message);
  }
  const wallS = (performance.now() - t0) / 1000;
  await judge.shutdown();
  return { tool: 'ragwatch_embedded', metrics: { faithfulness: 'grounding_lexical', relevancy: 'answer_relevancy' }, scores, tally: { calls: 0, failedCalls: 0, inputTokens: 0, outputTokens: 0, embeddingCalls: 0 }, wallS, errors };
}

/** A Python peer (bench/peers/python/<tool>_judge.py in its own environment) through the proxy. */
export async function runPythonPeer(tool: 'ragas' | 'deepeval', venv: string, triplets: LabelledTriplet[], proxy: LlmProxy, model: string): Promise<ToolRun> {
  const dir = mkdtempSync(join(tmpdir(), `rw-peer-${tool}-`));
  const input = join(dir, 'triplets.jsonl');
  writeFileSync(input, triplets.map((t) => JSON.stringify({ id: t.id, question: t.question, contexts: t.contexts, answer: t.answer })).join('\n') + '\n');
  const script = new URL(`./python/${tool}_judge.py`, import.meta.url).pathname;
  const tally = proxy.count(tool);
  const scores = new Map<string, Record<string, number | undefined>>();
  const errors: string[] = [];
  const t0 = performance.now();
  await new Promise<void>((resolve, reject) => {
    // Its own working directory and HOME: the tools write caches and settings files there, not in the clone.
    const child = spawn(join(venv, 'bin', 'python'), [script, input, '--base-url', proxy.baseUrl, '--model', model], { cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir }, stdio: ['ignore', 'pipe', 'pipe'] });
    let buf = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!line.startsWith('{')) continue;
        const o = JSON.parse(line) as { id: string; faithfulness: number | null; answer_relevancy: number | null; errors: Record<string, string> };
        scores.set(o.id, { faithfulness: o.faithfulness ?? undefined, answer_relevancy: o.answer_relevancy ?? undefined });
        for (const [m, e] of Object.entries(o.errors)) if (errors.length < 5) errors.push(`${m}: ${e}`);
        process.stderr.write(`peers judging ${tool}: ${scores.size}/${triplets.length} (${tally.calls} calls)\n`);
      }
    });
    child.stderr.on('data', (d: Buffer) => void (stderr = (stderr + d.toString()).slice(-3000)));
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${tool} exited ${code}: ${stderr}`))));
  });
  const wallS = (performance.now() - t0) / 1000;
  rmSync(dir, { recursive: true, force: true });
  return { tool, metrics: { faithfulness: 'faithfulness', relevancy: 'answer_relevancy' }, scores, tally: { ...tally }, wallS, errors };
}

/** ROC-AUC of `pos` over `neg` (Mann–Whitney, ties ½; calibration's rank AUC); undefined without both classes. */
function auc(pos: number[], neg: number[]): number | undefined {
  return rankAuc([...pos, ...neg], [...pos.map(() => 1 as const), ...neg.map(() => 0 as const)]) ?? undefined;
}

const words = (s: string) => s.split(/\s+/).filter(Boolean).length;

/** What a run measured, per triplet where it is a cost. */
export interface JudgingSummary {
  tool: string;
  triplets: number;
  callsPerTriplet: number;
  inputTokensPerTriplet: number;
  outputTokensPerTriplet: number;
  wallSPerTriplet: number;
  /** Judgments (triplet × metric) without a score. */
  failedJudgments: number;
  faithfulnessAuc: number | undefined;
  relevancyAuc: number | undefined;
  /** AUC on the rows whose two answers differ by at most one word (DESIGN §24: length alone separates HaluEval's classes). */
  faithfulnessAucLengthMatched: number | undefined;
  lengthMatchedPairs: number;
}

/** Costs, failures and AUCs of a run. A failed judgment is left out of the AUC (and counted). */
export function summarize(run: ToolRun, triplets: LabelledTriplet[]): JudgingSummary {
  const n = triplets.length;
  let failed = 0;
  for (const t of triplets) for (const m of [run.metrics.faithfulness, run.metrics.relevancy]) if (typeof run.scores.get(t.id)?.[m] !== 'number') failed++;
  const aucOf = (metric: string, subset: LabelledTriplet[]) => {
    const of = (label: 0 | 1) => subset.filter((t) => t.label === label).map((t) => run.scores.get(t.id)?.[metric]).filter((v): v is number => typeof v === 'number');
    return auc(of(1), of(0));
  };
  const byRow = new Map<number, LabelledTriplet[]>();
  for (const t of triplets) byRow.set(t.row, [...(byRow.get(t.row) ?? []), t]);
  const matched = [...byRow.values()].filter((p) => p.length === 2 && Math.abs(words(p[0]!.answer) - words(p[1]!.answer)) <= 1).flat();
  return {
    tool: run.tool,
    triplets: n,
    callsPerTriplet: run.tally.calls / n,
    inputTokensPerTriplet: run.tally.inputTokens / n,
    outputTokensPerTriplet: run.tally.outputTokens / n,
    wallSPerTriplet: run.wallS / n,
    failedJudgments: failed,
    faithfulnessAuc: aucOf(run.metrics.faithfulness, triplets),
    relevancyAuc: aucOf(run.metrics.relevancy, triplets),
    faithfulnessAucLengthMatched: aucOf(run.metrics.faithfulness, matched),
    lengthMatchedPairs: matched.length / 2,
  };
}

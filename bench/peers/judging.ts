/**
 * The judging half of the peer bench: HaluEval QA triplets (the development file `qa_one_turn.jsonl`;
 * each row gives two triplets, its right answer, label 1, and its hallucinated one, label 0) judged for
 * faithfulness / groundedness and answer relevancy by ragwatch's LLM judge, RAGAS (Faithfulness,
 * AnswerRelevancy — ResponseRelevancy before 0.4) and DeepEval (FaithfulnessMetric, AnswerRelevancyMetric),
 * the tools taking turns row by row against the same model on the same OpenAI-compatible server, every
 * call through one counting proxy (bench/peers/llm-proxy.ts); and ragwatch's embedded judge (no LLM).
 * Each judgment is a record (`JudgmentRecord`) as it happens, so a run stopped after k rows compares the
 * tools on those k rows, and a later one resumes with `--offset`.
 */
import { auc as rankAuc, aucWithInterval } from '../../src/calibration/measures.ts';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedJudge } from '../../src/judges/embedded/embedded-judge.ts';
import { LlmJudge } from '../../src/judges/llm/llm-judge.ts';
import type { SentenceEmbedder } from '../../src/judges/types.ts';
import type { SampledTriplet } from '../../src/triplet.ts';
import type { LlmProxy } from './llm-proxy.ts';

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

/** One tool's judgment of one triplet and what it cost: a line of `--out`. */
export interface JudgmentRecord {
  tool: string;
  id: string;
  row: number;
  label: 0 | 1;
  /** Faithfulness / groundedness (absent: failed, unparseable or skipped). */
  faithfulness?: number;
  /** Answer relevancy (absent: failed, unparseable or skipped). */
  relevancy?: number;
  calls: number;
  failedCalls: number;
  inputTokens: number;
  outputTokens: number;
  seconds: number;
  /** Why a judgment has no score. */
  errors: string[];
  /** The metrics the tool has (absent: both); one it lacks is not a failed judgment. */
  offers?: Array<'faithfulness' | 'relevancy'>;
}

/** A tool that judges one triplet at a time (the tools take turns row by row, so a stopped run is still a fair comparison). */
export interface TripletJudge {
  tool: string;
  judge(t: LabelledTriplet): Promise<Pick<JudgmentRecord, 'faithfulness' | 'relevancy' | 'errors'>>;
  close(): Promise<void>;
}

const sampled = (t: LabelledTriplet): SampledTriplet => ({
  id: t.id, traceId: t.id, spanId: 's', service: 'peer-bench', timestamp: new Date(0).toISOString(), query: t.question,
  sources: t.contexts.map((content) => ({ content })), response: t.answer, latency: { durationMs: 0 }, convention: 'custom',
  sampling: { weight: 1, stratum: 'all', rule: 'all' },
});

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/**
 * ragwatch's LLM judge through the proxy (its caches as deployed: source facts are shared by a row's two
 * answers). Relevancy is THELMA's response precision (the share of the answer's claims relevant to the
 * question), what DeepEval's AnswerRelevancyMetric computes; the LLM judge has no `answer_relevancy`.
 */
export async function ragwatchLlmJudge(proxy: LlmProxy, model: string, embedder: SentenceEmbedder, sourceMetrics = true): Promise<TripletJudge> {
  const judge = new LlmJudge({ baseUrl: proxy.baseUrl, apiKey: 'peer-bench', model, embedder, maxConcurrentRequests: 1, sourceMetrics });
  await judge.init();
  return {
    // `ragwatch_answer`: `judge.llm.sourceMetrics: false`, the answer's metrics only (two calls), as the peers judge.
    tool: sourceMetrics ? 'ragwatch' : 'ragwatch_answer',
    judge: async (t) => {
      const r = await judge.score(sampled(t));
      if (!r.ok) return { errors: [r.error.message.slice(0, 300)] };
      // A metric skipped (e.g. no claims in a two-word answer) is a judgment without a score: say why.
      const errors = ['groundedness', 'response_precision'].filter((m) => r.scores[m] === undefined).map((m) => `${m} skipped: ${JSON.stringify(r.skipped[m])}`);
      return { faithfulness: num(r.scores.groundedness), relevancy: num(r.scores.response_precision), errors };
    },
    close: () => judge.shutdown(),
  };
}

/** ragwatch's embedded judge (no LLM: the bundled sentence model and the lexical grounding check). */
export async function ragwatchEmbeddedJudge(): Promise<TripletJudge> {
  const judge = new EmbeddedJudge();
  await judge.init();
  return {
    tool: 'ragwatch_embedded',
    judge: async (t) => {
      const r = await judge.score(sampled(t));
      if (!r.ok) return { errors: [r.error.message] };
      return { faithfulness: num(r.scores.grounding_lexical), relevancy: num(r.scores.answer_relevancy), errors: [] };
    },
    close: () => judge.shutdown(),
  };
}

/**
 * A Python peer (bench/peers/python/<tool>_judge.py in its own environment), one long-lived process fed
 * a triplet at a time on stdin, its LLM calls through the proxy.
 */
export function pythonPeerJudge(tool: 'ragas' | 'deepeval', venv: string, proxy: LlmProxy, model: string): TripletJudge {
  // Its own working directory and HOME: the tools write caches and settings files there, not in the clone.
  const dir = mkdtempSync(join(tmpdir(), `rw-peer-${tool}-`));
  const script = new URL(`./python/${tool}_judge.py`, import.meta.url).pathname;
  const child = spawn(join(venv, 'bin', 'python'), [script, '--base-url', proxy.baseUrl, '--model', model], { cwd: dir, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir }, stdio: ['pipe', 'pipe', 'pipe'] });
  let waiting: { resolve: (o: PeerLine) => void; reject: (e: Error) => void } | undefined;
  let buf = '';
  let stderr = '';
  let exited: Error | undefined;
  child.stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      if (line.startsWith('{')) waiting?.resolve(JSON.parse(line) as PeerLine);
    }
  });
  child.stderr.on('data', (d: Buffer) => void (stderr = (stderr + d.toString()).slice(-3000)));
  child.on('exit', (code) => {
    exited = new Error(`${tool} exited ${code}: ${stderr}`);
    waiting?.reject(exited);
  });
  return {
    tool,
    judge: async (t) => {
      if (exited) throw exited;
      const o = await new Promise<PeerLine>((resolve, reject) => {
        waiting = { resolve, reject };
        child.stdin.write(JSON.stringify({ id: t.id, question: t.question, contexts: t.contexts, answer: t.answer }) + '\n');
      });
      waiting = undefined;
      return { faithfulness: num(o.faithfulness), relevancy: num(o.answer_relevancy), errors: Object.entries(o.errors).map(([m, e]) => `${m}: ${e}`) };
    },
    close: async () => {
      if (!exited) {
        child.stdin.end();
        await new Promise((r) => child.once('exit', r));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface PeerLine {
  id: string;
  faithfulness: number | null;
  answer_relevancy: number | null;
  errors: Record<string, string>;
}

/** Judges `t` with `judge`, counting its calls and tokens at the proxy (tools run one at a time). */
export async function judgeTriplet(judge: TripletJudge, proxy: LlmProxy | undefined, t: LabelledTriplet): Promise<JudgmentRecord> {
  const tally = proxy?.count(judge.tool) ?? { calls: 0, failedCalls: 0, inputTokens: 0, outputTokens: 0, embeddingCalls: 0 };
  const t0 = performance.now();
  const r = await judge.judge(t).catch((e: unknown) => ({ errors: [String(e instanceof Error ? e.message : e).slice(0, 300)] }) as Awaited<ReturnType<TripletJudge['judge']>>);
  const seconds = (performance.now() - t0) / 1000;
  return { tool: judge.tool, id: t.id, row: t.row, label: t.label, ...r, calls: tally.calls, failedCalls: tally.failedCalls, inputTokens: tally.inputTokens, outputTokens: tally.outputTokens, seconds };
}

/**
 * A record of `scripts/llm-judge-real.ts` (issue 51's run of ragwatch's LLM judge on the same file and
 * server) as a peer-bench record, so a judging run of the peers alone can be read beside it.
 */
export function fromLlmJudgeReal(o: { row: number; label: 0 | 1; ok: boolean; scores?: Record<string, number>; calls: number; inputTokens: number; outputTokens: number; seconds: number; error?: string }): JudgmentRecord {
  return {
    tool: 'ragwatch', id: `h${o.row}-${o.label === 1 ? 'right' : 'hallucinated'}`, row: o.row, label: o.label,
    faithfulness: num(o.scores?.groundedness), relevancy: num(o.scores?.response_precision),
    calls: o.calls, failedCalls: 0, inputTokens: o.inputTokens, outputTokens: o.outputTokens, seconds: o.seconds, errors: o.ok ? [] : [o.error ?? 'failed'],
  };
}

/** ROC-AUC of `pos` over `neg` (Mann–Whitney, ties ½; calibration's rank AUC); undefined without both classes. */
function auc(pos: number[], neg: number[]): number | undefined {
  return rankAuc([...pos, ...neg], [...pos.map(() => 1 as const), ...neg.map(() => 0 as const)]) ?? undefined;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
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
  /** The median triplet's wall seconds (a triplet slowed by other work on the machine moves the mean, not this). */
  wallSMedianPerTriplet: number;
  /** Judgments (triplet × metric) without a score. */
  failedJudgments: number;
  faithfulnessAuc: number | undefined;
  /** Its 95 % DeLong interval (absent with one class or zero variance). */
  faithfulnessAuc95?: [number, number];
  relevancyAuc: number | undefined;
  relevancyAuc95?: [number, number];
  /** AUC on the rows whose two answers differ by at most one word (DESIGN §24: length alone separates HaluEval's classes). */
  faithfulnessAucLengthMatched: number | undefined;
  lengthMatchedPairs: number;
}

/**
 * The local judge's scores of the development file (`tests/fixtures/halueval-local-scores.json`, made
 * by scripts/local-judge-halueval.ts: row i's right and hallucinated answers) as records of the tool
 * `ragwatch_local`: its `claim_support` is its faithfulness; it has no relevancy metric. Its cost is
 * in process, not LLM calls (docs/judges.md): calls and tokens are 0, seconds unrecorded (0).
 */
export function fromLocalFixture(fixture: { right: Array<Record<string, number>>; hallucinated: Array<Record<string, number>> }): JudgmentRecord[] {
  const of = (row: number, label: 0 | 1, scores: Record<string, number> | undefined): JudgmentRecord => ({
    tool: 'ragwatch_local', id: `h${row}-${label === 1 ? 'right' : 'hallucinated'}`, row, label, faithfulness: num(scores?.claim_support),
    calls: 0, failedCalls: 0, inputTokens: 0, outputTokens: 0, seconds: 0, errors: [], offers: ['faithfulness'],
  });
  return fixture.right.flatMap((r, row) => [of(row, 1, r), of(row, 0, fixture.hallucinated[row])]);
}

/**
 * Costs, failures and AUCs of one tool's records, on the triplets every tool judged (`common`: a stopped
 * or resumed run compares like with like). A failed judgment is left out of the AUC (and counted). A
 * triplet judged twice by a tool (a failure judged again, appended to the same file) counts its last record.
 */
export function summarize(tool: string, records: JudgmentRecord[], common: LabelledTriplet[]): JudgingSummary {
  const n = common.length;
  const of = new Map(records.filter((r) => r.tool === tool).map((r) => [r.id, r]));
  const mine = common.map((t) => of.get(t.id)!);
  const sum = (f: (r: JudgmentRecord) => number) => mine.reduce((a, r) => a + f(r), 0);
  const offered = (r: JudgmentRecord, m: 'faithfulness' | 'relevancy') => r.offers?.includes(m) ?? true;
  const failed = mine.reduce((a, r) => a + (offered(r, 'faithfulness') && r.faithfulness === undefined ? 1 : 0) + (offered(r, 'relevancy') && r.relevancy === undefined ? 1 : 0), 0);
  const aucOf = (metric: 'faithfulness' | 'relevancy', subset: LabelledTriplet[]) => {
    const values = (label: 0 | 1) => subset.filter((t) => t.label === label).map((t) => of.get(t.id)?.[metric]).filter((v): v is number => typeof v === 'number');
    return auc(values(1), values(0));
  };
  const interval = <K extends string>(key: K, metric: 'faithfulness' | 'relevancy'): Partial<Record<K, [number, number]>> => {
    const scored = common.filter((t) => typeof of.get(t.id)?.[metric] === 'number');
    const a = aucWithInterval(scored.map((t) => of.get(t.id)![metric]!), scored.map((t) => t.label));
    return a?.lower != null && a.upper != null ? ({ [key]: [a.lower, a.upper] } as Partial<Record<K, [number, number]>>) : {};
  };
  const byRow = new Map<number, LabelledTriplet[]>();
  for (const t of common) byRow.set(t.row, [...(byRow.get(t.row) ?? []), t]);
  const matched = [...byRow.values()].filter((p) => p.length === 2 && Math.abs(words(p[0]!.answer) - words(p[1]!.answer)) <= 1).flat();
  return {
    tool,
    triplets: n,
    callsPerTriplet: sum((r) => r.calls) / n,
    inputTokensPerTriplet: sum((r) => r.inputTokens) / n,
    outputTokensPerTriplet: sum((r) => r.outputTokens) / n,
    wallSPerTriplet: sum((r) => r.seconds) / n,
    wallSMedianPerTriplet: median(mine.map((r) => r.seconds)),
    failedJudgments: failed,
    faithfulnessAuc: aucOf('faithfulness', common),
    ...interval('faithfulnessAuc95', 'faithfulness'),
    relevancyAuc: aucOf('relevancy', common),
    ...interval('relevancyAuc95', 'relevancy'),
    faithfulnessAucLengthMatched: aucOf('faithfulness', matched),
    lengthMatchedPairs: matched.length / 2,
  };
}

/** The triplets of `triplets` that every tool of `records` judged. */
export function commonTriplets(records: JudgmentRecord[], triplets: LabelledTriplet[]): LabelledTriplet[] {
  const tools = [...new Set(records.map((r) => r.tool))];
  const judged = new Map(tools.map((tool) => [tool, new Set(records.filter((r) => r.tool === tool).map((r) => r.id))]));
  return triplets.filter((t) => tools.length > 0 && tools.every((tool) => judged.get(tool)!.has(t.id)));
}

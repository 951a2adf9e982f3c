/**
 * Judge cost figures on 24 HaluEval-derived triplets (bench runner: bench/run.ts):
 *  - LLM judge calls per triplet with a cold cache and with source facts cached (warm), the tokens
 *    per triplet, and the call count of the naive one-call-per-item protocol on the same triplets.
 *    The endpoint is the local OpenAI-compatible server answering with the scripted judge; tokens
 *    are what it reports (≈ prompt and answer characters / 4).
 *  - The same with three custom `llm` evaluators configured (docs/evaluators.md's two worked examples
 *    and a score rubric): calls per triplet (all evaluators in one extra call) and the tokens they add.
 *  - Embedded judge milliseconds per triplet after model load.
 */
import { readFileSync } from 'node:fs';
import { loadConfig } from '../src/config/load.ts';
import { EmbeddedJudge } from '../src/judges/embedded/embedded-judge.ts';
import { LlmJudge } from '../src/judges/llm/llm-judge.ts';
import type { SampledTriplet } from '../src/triplet.ts';
import { startFakeOpenAI } from '../tests/fakes/openai-server.ts';
import { oracleResponder, parsePrompt } from '../tests/judges/helpers/oracle.ts';
import { WORKED_EXAMPLES } from '../tests/evaluators/worked-examples.ts';
import { QUICK, emit, median } from './lib.ts';

const N = QUICK ? 20 : 24;
interface Row { knowledge: string; question: string; right_answer: string; hallucinated_answer: string }
const rows = readFileSync(new URL('../scripts/data/halueval-qa-sample.jsonl', import.meta.url), 'utf8').trim().split('\n').slice(0, N).map((l) => JSON.parse(l) as Row);

/** Two chunks per knowledge passage (as a retriever returns them) plus a boilerplate chunk retrieved every time. */
const BOILERPLATE = 'All answers are provided for information only. Contact the help desk for corrections.';
/** A follow-up that names nothing, with the row's question and answer as the earlier turn. */
const FOLLOW_UP = 'Can you tell me more about that?';
function triplet(i: number, r: Row, answer: string, followUp = false): SampledTriplet {
  const cut = r.knowledge.indexOf('.', r.knowledge.length / 2);
  const chunks = cut > 0 ? [r.knowledge.slice(0, cut + 1), r.knowledge.slice(cut + 1)] : [r.knowledge];
  return {
    id: `b${i}-${answer.length}`, traceId: `b${i}`, spanId: 's', service: 'bench', timestamp: new Date(0).toISOString(),
    query: followUp ? FOLLOW_UP : r.question,
    ...(followUp ? { conversation: { id: `conv${i}`, turn: 2, history: [{ role: 'user' as const, content: r.question }, { role: 'assistant' as const, content: r.right_answer }] } } : {}),
    sources: [...chunks.filter((c) => c.trim()).map((content) => ({ content })), { content: BOILERPLATE }],
    response: `${answer.replace(/\.?$/, '.')} This is based on the retrieved documents.`,
    latency: { durationMs: 0 }, convention: 'custom', sampling: { weight: 1, stratum: 'all', rule: 'all' },
  };
}

const fake = await startFakeOpenAI(oracleResponder());
const judge = new LlmJudge({ baseUrl: fake.baseURL, apiKey: 'bench', model: 'bench-judge' });
await judge.init();

/** Calls the naive protocol needs for one triplet: one decomposition per text, one match per item (pair). */
function naiveCalls(sources: number, claims: number, subQuestions: number, facts: number): number {
  const decompose = 1 + 1 + sources;
  const claimMatches = 2 * claims; // essentiality + support, per claim
  const sourceMatches = sources + facts; // chunk essentiality + fact essentiality
  const coverage = subQuestions * sources + subQuestions + subQuestions; // per source, whole set, by the response
  return decompose + claimMatches + sourceMatches + coverage;
}

/** Three custom llm evaluators: no dosage advice (boolean), answer tone (categorical), on topic (score). */
const THREE_EVALUATORS = loadConfig({
  env: {},
  overrides: {
    evaluators: [
      ...WORKED_EXAMPLES.filter((e) => e.kind === 'llm'),
      { name: 'on_topic', description: 'The answer stays on the question.', kind: 'llm', rubric: 'How much of the RESPONSE is about what the QUERY asks? 1: all of it; 0: none of it.', inputs: ['query', 'response'], output: { type: 'score' } },
    ],
  },
}).evaluators;
const withEvaluators = new LlmJudge({ baseUrl: fake.baseURL, apiKey: 'bench', model: 'bench-judge', evaluators: THREE_EVALUATORS });
await withEvaluators.init();

async function pass(answerOf: (r: Row) => string, followUp = false, j: LlmJudge = judge) {
  const calls: number[] = [];
  const tokens: number[] = [];
  const output: number[] = [];
  const naive: number[] = [];
  for (const [i, r] of rows.entries()) {
    fake.requests.length = 0;
    const t = triplet(i, r, answerOf(r), followUp);
    const res = await j.score(t);
    if (!res.ok) throw res.error;
    const facts = fake.requests.map(parsePrompt).filter((p) => p.step === 'source_match').reduce((n, p) => n + p.blocks.filter((b) => b.kind === 'fact').length, 0);
    calls.push(res.usage.calls);
    tokens.push(res.usage.inputTokens + res.usage.outputTokens);
    output.push(res.usage.outputTokens);
    naive.push(naiveCalls(t.sources.length, res.details.claims.length, res.details.subQuestions.length, facts));
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return { calls: mean(calls), maxCalls: Math.max(...calls), tokens: mean(tokens), output: mean(output), naive: mean(naive) };
}

const coldLlm = await pass((r) => r.right_answer);
const warm = await pass((r) => r.hallucinated_answer);
// Follow-ups judged with their earlier turns: the stand-alone rewrite rides in the decompose call.
const withHistory = await pass((r) => r.right_answer, true);
// The cold pass again, with three custom llm evaluators: one extra call, whatever their number.
const evaluated = await pass((r) => r.right_answer, false, withEvaluators);
emit({ bench: 'judges', figure: 'judge_calls_per_triplet_cold', value: coldLlm.calls, unit: 'calls', baseline: coldLlm.naive, ratio: coldLlm.calls / coldLlm.naive });
emit({ bench: 'judges', figure: 'judge_calls_per_triplet_warm', value: warm.calls, unit: 'calls', baseline: warm.naive, ratio: warm.calls / warm.naive });
emit({ bench: 'judges', figure: 'judge_calls_per_triplet_with_history', value: withHistory.calls, unit: 'calls', baseline: warm.calls, ratio: withHistory.calls / warm.calls });
emit({ bench: 'judges', figure: 'judge_tokens_per_triplet_with_history', value: withHistory.tokens, unit: 'tokens', baseline: warm.tokens, ratio: withHistory.tokens / warm.tokens });
emit({ bench: 'judges', figure: 'judge_calls_per_triplet_naive', value: coldLlm.naive, unit: 'calls', baseline: null, ratio: null });
emit({ bench: 'judges', figure: 'judge_tokens_per_triplet', value: coldLlm.tokens, unit: 'tokens', baseline: null, ratio: null });
emit({ bench: 'judges', figure: 'judge_output_tokens_per_triplet', value: coldLlm.output, unit: 'tokens', baseline: coldLlm.tokens, ratio: coldLlm.output / coldLlm.tokens });
emit({ bench: 'judges', figure: 'judge_calls_per_triplet_cold_max', value: coldLlm.maxCalls, unit: 'calls', baseline: null, ratio: null });
emit({ bench: 'judges', figure: 'judge_tokens_per_triplet_warm', value: warm.tokens, unit: 'tokens', baseline: coldLlm.tokens, ratio: warm.tokens / coldLlm.tokens });
emit({ bench: 'judges', figure: 'judge_calls_per_triplet_three_evaluators', value: evaluated.calls, unit: 'calls', baseline: coldLlm.calls, ratio: evaluated.calls / coldLlm.calls });
emit({ bench: 'judges', figure: 'judge_calls_per_triplet_three_evaluators_max', value: evaluated.maxCalls, unit: 'calls', baseline: coldLlm.maxCalls, ratio: evaluated.maxCalls / coldLlm.maxCalls });
emit({ bench: 'judges', figure: 'judge_tokens_added_by_three_evaluators', value: evaluated.tokens - coldLlm.tokens, unit: 'tokens', baseline: coldLlm.tokens, ratio: (evaluated.tokens - coldLlm.tokens) / coldLlm.tokens });
await judge.shutdown();
await withEvaluators.shutdown();
await fake.close();

// Embedded judge, after model load: every triplet once with a fresh embedding cache (cold), then
// new answers over the same sources (source sentence embeddings cached, as in production). Measured
// with the default worker threads and, as the baseline in the same run, on the main thread
// (`judge.embedded.threads: 0`), alternating so both see the same machine load.
// CPU time is reported beside wall time: on a shared machine wall time includes waiting for a core.
const timeAll = async (judge: EmbeddedJudge, answerOf: (r: Row) => string) => {
  const ms: number[] = [];
  const cpuMs: number[] = [];
  for (const [i, r] of rows.entries()) {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const res = await judge.score(triplet(i, r, answerOf(r)));
    if (!res.ok) throw res.error;
    const used = process.cpuUsage(cpu);
    ms.push(performance.now() - started);
    cpuMs.push((used.user + used.system) / 1000);
  }
  return { wall: median(ms), cpu: median(cpuMs) };
};
const ROUNDS = QUICK ? 1 : 3;
const result = { pooled: { cold: [] as number[], cpu: [] as number[], warm: [] as number[] }, main: { cold: [] as number[], cpu: [] as number[], warm: [] as number[] } };
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, threads] of [['pooled', undefined], ['main', 0]] as const) {
    // A fresh judge per round: a cold embedding cache of its own (not the process-wide one, which would
    // be warm from the previous round), the model itself loaded once per process.
    const embedded = new EmbeddedJudge({ embeddingCacheSize: 10_000, ...(threads === undefined ? {} : { threads }) });
    await embedded.init();
    const cold = await timeAll(embedded, (r) => r.right_answer);
    const warmRun = await timeAll(embedded, (r) => r.hallucinated_answer);
    result[name].cold.push(cold.wall);
    result[name].cpu.push(cold.cpu);
    result[name].warm.push(warmRun.wall);
    await embedded.shutdown();
  }
}
const pooled = median(result.pooled.cold);
const onMain = median(result.main.cold);
emit({ bench: 'judges', figure: 'embedded_judge_ms_per_triplet', value: pooled, unit: 'ms', baseline: onMain, ratio: pooled / onMain });
emit({ bench: 'judges', figure: 'embedded_judge_cpu_ms_per_triplet', value: median(result.pooled.cpu), unit: 'ms', baseline: pooled, ratio: median(result.pooled.cpu) / pooled });
emit({ bench: 'judges', figure: 'embedded_judge_ms_per_triplet_main_thread', value: onMain, unit: 'ms', baseline: null, ratio: null });
const cachedSources = median(result.pooled.warm);
emit({ bench: 'judges', figure: 'embedded_judge_ms_per_triplet_cached_sources', value: cachedSources, unit: 'ms', baseline: pooled, ratio: cachedSources / pooled });
// The pool's worker threads are unreferenced when idle; nothing else keeps this process alive.

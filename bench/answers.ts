/**
 * The answer page's cost (issue 52; bench runner: bench/run.ts):
 *  - `trail_ring_mb_default` / `trail_ring_mb_10x`: heap held by the trail's ring full at its default
 *    size (`trail.maxTraces` 5000) and at 10× (50000), each trace with the decisions of a judged and
 *    exported answer recorded through the roles' own functions (src/roles/trail.ts: 3 spans received,
 *    capture, sampling, queue, judge, two export writers: 6 events, a response id); MB of heap after a full GC. The default is gated (< 12 MB).
 *  - `trail_record_ns`: one decision recorded into the full ring (evicting the oldest), ns.
 *  - `answer_page_ms_p99` / `answer_api_ms_p99`: `/answers/<traceId>` and `GET /api/answers/<traceId>`
 *    through the real routes with the default ring full and 10000 judged answers in the embedded store
 *    (a third of the lookups for traces never seen, which list the recent ones), p99 of 300; gated < 100 ms.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Hono } from 'hono';
import { mountAnswers } from '../src/server/answer-routes.ts';
import { AnswerStore } from '../src/store/answer-store.ts';
import { openDatabase } from '../src/store/sqlite.ts';
import { TraceRing } from '../src/trail/trace-ring.ts';
import type { SampledTriplet, ScoreRecord } from '../src/triplet.ts';
import { loadConfig } from '../src/config/load.ts';
import type { EvaluationResult } from '../src/evaluation-export/types.ts';
import { exportSettled, flagRuleOf, traceOutcome, traceQueued, traceSampling, tracedHandler } from '../src/roles/trail.ts';
import { emit, median, percentile, QUICK } from './lib.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

/** `trail.maxTraces`' default, and `store.maxAnswers`'. */
const DEFAULT = 5_000;
const STORE = 10_000;
let n = 0;
const traceIdOf = (i: number) => i.toString(16).padStart(32, '0');

/** The decisions of one judged and exported answer, recorded through the roles' own functions. */
const judgedRecord = (traceId: string): ScoreRecord => ({
  tripletId: `t-${traceId}`, traceId, service: 'rag', stratum: 'all', weight: 1, timestamp: '', judge: { kind: 'llm', model: 'gpt-4o-mini' },
  scores: { groundedness: 0.92, faithfulness: 1, source_precision: 0.75 }, skipped: {}, diagnosis: [], details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] },
  usage: { calls: 3, inputTokens: 2900 + (n % 300), outputTokens: 335, durationMs: 2210 + (n % 700) },
});
const flag = flagRuleOf(loadConfig({ env: {} }));
async function fill(ring: TraceRing, i: number): Promise<void> {
  const traceId = traceIdOf(i);
  const triplet: SampledTriplet = { id: `${traceId.slice(0, 16)}${(i * 7).toString(16).padStart(16, '0')}`, traceId, spanId: traceId.slice(16), service: 'rag', timestamp: '', query: 'q', sources: [{ content: 'a' }, { content: 'b' }, { content: 'c' }, { content: 'd' }], response: 'r', responseId: `chatcmpl-${i.toString(36)}abcdefghij`, latency: { durationMs: 900 }, convention: 'openinference', sampling: { weight: 1, stratum: 'all', rule: 'rate' } };
  for (let s = 0; s < 3; s++) ring.spans(traceId, 1, 'otlp');
  traceOutcome(ring, { kind: 'triplet', triplet, mapper: 'openinference', explain: { spanName: 'ChatOpenAI', sourcesSource: `retrieval span ${traceId.slice(0, 8)} "retrieve" (openinference)` } });
  traceSampling(ring, triplet, { sampled: true, sampling: triplet.sampling });
  traceQueued(ring, triplet, true, 'memory queue (transport.maxQueueSize)');
  await tracedHandler(ring, () => Promise.resolve({ status: 'scored', record: judgedRecord(traceId) }), flag)(triplet, { attempt: 1 });
  const settled = exportSettled(ring);
  settled('otlp', Array.from({ length: 9 }, () => ({ traceId }) as EvaluationResult), { status: 'sent' });
  settled('phoenix', Array.from({ length: 9 }, () => ({ traceId }) as EvaluationResult), { status: 'sent' });
  n++;
}

async function ringBytes(traces: number): Promise<number> {
  const before = heap();
  const ring = new TraceRing({ maxTraces: traces });
  for (let i = 0; i < traces; i++) await fill(ring, i);
  const after = heap();
  if (ring.stats().traces !== traces) throw new Error('ring not full');
  return after - before;
}

const defaultBytes = await ringBytes(DEFAULT);
const tenXBytes = QUICK ? defaultBytes * 10 : await ringBytes(DEFAULT * 10);
if (QUICK) console.error('answers: --quick measures the default ring only; the 10× figure is extrapolated');

// Recording into a full ring: each new trace evicts the oldest.
const ring = new TraceRing({ maxTraces: DEFAULT });
for (let i = 0; i < DEFAULT; i++) await fill(ring, i);
const reps = QUICK ? 50_000 : 300_000;
const t0 = process.hrtime.bigint();
for (let i = 0; i < reps; i++) ring.record(traceIdOf(DEFAULT + i), { stage: 'sampling', outcome: 'not_sampled', reason: 'rate' });
const recordNs = Number(process.hrtime.bigint() - t0) / reps;
// Refill with judged answers (the page's worst case: every stage present).
for (let i = 0; i < DEFAULT; i++) await fill(ring, i);

// The embedded store with as many judged answers as the default keeps.
const dir = mkdtempSync(join(tmpdir(), 'ragwatch-bench-answers-'));
const db = await openDatabase(join(dir, 'ragwatch.sqlite'));
const store = new AnswerStore({ db, maxAnswers: STORE, maxPerSecond: Infinity });
const sources = Array.from({ length: 4 }, (_, k) => ({ id: `doc-${k}`, content: `The Chimnabai Clock Tower is a clock tower in the Raopura area of Vadodara. Document ${k} holds about four hundred characters of text, as retrieved chunks do. `.repeat(3) }));
for (let i = 0; i < STORE; i++) {
  const traceId = traceIdOf(i);
  const record: ScoreRecord = {
    tripletId: `t${i}`, traceId, service: 'rag', release: '1.4.2', route: '/ask', model: 'gpt-4o-mini', stratum: 'all', weight: 1, timestamp: new Date().toISOString(), judge: { kind: 'llm', model: 'gpt-4o-mini' },
    scores: { groundedness: 0.62, faithfulness: 0.7, hallucination_free: 1, source_precision: 0.5, response_precision: 0.66, response_query_coverage: 1, source_query_coverage: 0.5, response_self_distinctness: 1 },
    skipped: {}, diagnosis: [], usage: { calls: 3, inputTokens: 2900, outputTokens: 335, durationMs: 2210 },
    details: { claims: [{ text: 'The Chimnabai Clock Tower was completed in 1896.', verdict: 'supported' }, { text: 'It was built by Napoleon.', verdict: 'contradicted' }, { text: 'It is 30 m tall.', verdict: 'not_in_sources' }], subQuestions: [], sources: [], redundantSentences: [] },
  };
  const triplet: SampledTriplet = { id: `t${i}`, traceId, spanId: '0'.repeat(16), service: 'rag', timestamp: record.timestamp, query: 'When was the Chimnabai Clock Tower completed, and who was it named after?', sources, response: 'The Chimnabai Clock Tower was completed in 1896. It was built by Napoleon. It is 30 m tall.', latency: { durationMs: 900, ttftMs: 250 }, convention: 'openinference', responseId: `chatcmpl-${i.toString(36)}abcdefghij`, sampling: { weight: 1, stratum: 'all', rule: 'rate' } };
  store.onRecord(record, triplet);
}
store.flush();

const app = new Hono();
mountAnswers(app, () => ({ trail: ring, answers: store, role: 'start', thresholds: { groundedness: 0.7, faithfulness: 0.7 }, feedbackOf: () => [], labelsOf: () => [] }), undefined);
const requests = QUICK ? 90 : 300;
async function time(path: (i: number) => string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < requests; i++) {
    const t = performance.now();
    const res = await app.request(path(i));
    await res.text();
    times.push(performance.now() - t);
  }
  return times;
}
// Two of three lookups hit a held trace (judged, every stage), one a trace never seen (the recent list).
const pick = (i: number) => (i % 3 === 2 ? 'f'.repeat(32) : traceIdOf((i * 7919) % DEFAULT));
await time((i) => `/answers/${pick(i)}`); // warm-up
const page = await time((i) => `/answers/${pick(i)}`);
const api = await time((i) => `/api/answers/${pick(i)}`);
store.close();
db.close();
rmSync(dir, { recursive: true, force: true });

const mb = (b: number) => b / 1e6;
console.error(`answers: ring ${DEFAULT} traces ${mb(defaultBytes).toFixed(1)} MB (${Math.round(defaultBytes / DEFAULT)} B/trace), ×10 ${mb(tenXBytes).toFixed(1)} MB; record ${recordNs.toFixed(0)} ns; page p50 ${median(page).toFixed(1)} ms p99 ${percentile(page, 99).toFixed(1)} ms; api p99 ${percentile(api, 99).toFixed(1)} ms (${n} traces filled)`);
emit({ bench: 'answers', figure: 'trail_ring_mb_default', value: mb(defaultBytes), unit: 'MB', baseline: null, ratio: null });
emit({ bench: 'answers', figure: 'trail_ring_mb_10x', value: mb(tenXBytes), unit: 'MB', baseline: mb(defaultBytes), ratio: tenXBytes / defaultBytes });
emit({ bench: 'answers', figure: 'trail_record_ns', value: recordNs, unit: 'ns', baseline: null, ratio: null });
emit({ bench: 'answers', figure: 'answer_page_ms_p99', value: percentile(page, 99), unit: 'ms', baseline: median(page), ratio: null });
emit({ bench: 'answers', figure: 'answer_api_ms_p99', value: percentile(api, 99), unit: 'ms', baseline: median(api), ratio: null });

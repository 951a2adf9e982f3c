/**
 * The answer page's cost (issue 52; bench runner: bench/run.ts):
 *  - `trail_ring_mb_default` / `trail_ring_mb_10x`: heap held by the trail's ring full at its default
 *    size (`trail.maxTraces` 10000) and at 10× (100000), each trace with the decisions of a judged and
 *    exported answer (3 spans received, capture, sampling, queue, judge, two export writers: 6 events
 *    with their detail lines, a response id); MB of heap after a full GC. The default is gated (< 16 MB).
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
import { emit, median, percentile, QUICK } from './lib.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const DEFAULT = 10_000;
let n = 0;
const traceIdOf = (i: number) => i.toString(16).padStart(32, '0');

/** The decisions of one judged and exported answer, as the roles record them. */
function fill(ring: TraceRing, i: number): void {
  const t = traceIdOf(i);
  const id = `${t.slice(0, 16)}${(i * 7).toString(16).padStart(16, '0')}`;
  for (let s = 0; s < 3; s++) ring.spans(t, 1, 'otlp');
  ring.record(t, { stage: 'capture', outcome: 'assembled', reason: 'openinference', tripletId: id, detail: `generation span ${t.slice(0, 16)} (openinference): 4 sources from retrieval span 1a2b3c4d "retrieve" (openinference)` });
  ring.responseId(t, `chatcmpl-${i.toString(36)}abcdefghij`);
  ring.record(t, { stage: 'sampling', outcome: 'sampled', reason: 'rate', tripletId: id, detail: 'sampled by the sampling rate (sampling.rate), stratum all, weight 1' });
  ring.record(t, { stage: 'queue', outcome: 'queued', reason: 'memory', tripletId: id, detail: 'memory queue (transport.maxQueueSize)' });
  ring.record(t, { stage: 'judge', outcome: 'judged', reason: 'llm', tripletId: id, detail: 'judged, no metric at or below its threshold — llm judge (gpt-4o-mini), 1 attempt; 3 calls, 3235 tokens, 2210 ms' });
  ring.record(t, { stage: 'export', outcome: 'sent', reason: 'otlp', detail: '9 evaluation results to otlp: accepted' });
  ring.record(t, { stage: 'export', outcome: 'sent', reason: 'phoenix', detail: '9 evaluation results to phoenix: accepted' });
  n++;
}

function ringBytes(traces: number): number {
  const before = heap();
  const ring = new TraceRing({ maxTraces: traces });
  for (let i = 0; i < traces; i++) fill(ring, i);
  const after = heap();
  if (ring.stats().traces !== traces) throw new Error('ring not full');
  return after - before;
}

const defaultBytes = ringBytes(DEFAULT);
const tenXBytes = QUICK ? defaultBytes * 10 : ringBytes(DEFAULT * 10);
if (QUICK) console.error('answers: --quick measures the default ring only; the 10× figure is extrapolated');

// Recording into a full ring: each new trace evicts the oldest.
const ring = new TraceRing({ maxTraces: DEFAULT });
for (let i = 0; i < DEFAULT; i++) fill(ring, i);
const reps = QUICK ? 50_000 : 300_000;
const t0 = process.hrtime.bigint();
for (let i = 0; i < reps; i++) ring.record(traceIdOf(DEFAULT + i), { stage: 'sampling', outcome: 'not_sampled', reason: 'rate' });
const recordNs = Number(process.hrtime.bigint() - t0) / reps;
// Refill with judged answers (the page's worst case: every stage present).
for (let i = 0; i < DEFAULT; i++) fill(ring, i);

// The embedded store with as many judged answers as the default keeps.
const dir = mkdtempSync(join(tmpdir(), 'ragwatch-bench-answers-'));
const db = await openDatabase(join(dir, 'ragwatch.sqlite'));
const store = new AnswerStore({ db, maxAnswers: DEFAULT, maxPerSecond: Infinity });
const sources = Array.from({ length: 4 }, (_, k) => ({ id: `doc-${k}`, content: `The Chimnabai Clock Tower is a clock tower in the Raopura area of Vadodara. Document ${k} holds about four hundred characters of text, as retrieved chunks do. `.repeat(3) }));
for (let i = 0; i < DEFAULT; i++) {
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

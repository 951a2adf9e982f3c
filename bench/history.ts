/**
 * The history's cost (issue 47; bench runner: bench/run.ts): seven days at one answer a second across
 * 12 metrics (one service, one judge, a release a couple of days long), fed through the history's sink
 * record by record on a simulated clock, written every 10 s and maintained every 5 min as the timers do,
 * with the defaults (one-minute rollups for a day, 10-minute ones after, 7 days kept):
 *  - `history_store_bytes_7d`: the store's file after the seven days (WAL checkpointed), bytes; target
 *    < 4 MB, gated (the rows are fixed by the steps and series, whatever the traffic);
 *  - `history_rows_7d`: rollup rows then;
 *  - `history_sink_ns_per_record`: the scoring path's cost of one record of 12 scores (memory only),
 *    against the metrics consumer's windows adding the same scores (ratio), over the first day;
 *  - `history_front_door_ms`: the front door's history section for 24 h (12 charts, band and all),
 *    median of 5; and `history_maintain_ms`, one maintenance pass at the end.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HistorySink } from '../src/history/sink.ts';
import { HistoryStore } from '../src/history/store.ts';
import { HistoryReader } from '../src/history/view.ts';
import { ScoreWindows } from '../src/metrics/score-windows.ts';
import { historySection } from '../src/server/history-section.ts';
import { openDatabase } from '../src/store/sqlite.ts';
import type { ScoreRecord } from '../src/triplet.ts';
import { emit, median } from './lib.ts';

const METRICS = ['groundedness', 'faithfulness', 'hallucination_free', 'source_precision', 'source_fact_precision', 'source_query_coverage', 'response_precision', 'response_query_coverage', 'response_self_distinctness', 'context_relevancy', 'answer_relevancy', 'completeness'] as const;
const DAYS = 7;
/** Records timed (the first day's). */
const TIMED = 86_400;
const START = Date.UTC(2026, 0, 5);
const dir = mkdtempSync(join(tmpdir(), 'ragwatch-bench-history-'));
const file = join(dir, 'ragwatch.sqlite');
let now = START;
const clock = () => now;
const db = await openDatabase(file);
const store = new HistoryStore({ db, now: clock });
const thresholds = Object.fromEntries(METRICS.map((m) => [m, 0.7]));
const sink = new HistorySink({ store, now: clock, thresholds: () => thresholds });
const view = new HistoryReader({ store, flush: () => sink.flush(), now: clock, thresholds: () => thresholds });
const windows = new ScoreWindows({ now: clock });

let seed = 47;
const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
const scores: Record<string, number> = {};
const record: ScoreRecord = { tripletId: 't', traceId: '0'.repeat(32), service: 'rag', release: '1.0', stratum: 'default', weight: 1, timestamp: '', judge: { kind: 'llm' }, scores, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [], usage: { calls: 1, inputTokens: 0, outputTokens: 0, durationMs: 0 } };

let sinkNs = 0n;
let windowsNs = 0n;
let records = 0;
for (let s = 0; s < DAYS * 86_400; s++) {
  now = START + s * 1_000;
  for (const m of METRICS) scores[m] = 0.6 + 0.4 * random();
  record.release = `1.${Math.floor(s / (2.5 * 86_400))}`;
  record.timestamp = new Date(now).toISOString();
  if (s < TIMED) {
    // The first day is timed against the windows' adds; the rest only fills the store.
    const t0 = process.hrtime.bigint();
    sink.onRecord(record);
    const t1 = process.hrtime.bigint();
    for (const [metric, v] of Object.entries(scores)) windows.add({ metric, judge: 'llm', service: 'rag' }, v, 1);
    const t2 = process.hrtime.bigint();
    sinkNs += t1 - t0;
    windowsNs += t2 - t1;
    records++;
  } else sink.onRecord(record);
  if (s % 10 === 9) sink.flush();
  if (s % 300 === 299) sink.maintain();
}
const m0 = performance.now();
sink.maintain();
const maintainMs = performance.now() - m0;
const times: number[] = [];
for (let i = 0; i < 5; i++) {
  const t = performance.now();
  historySection(view, { nowMs: now, range: '24h' });
  times.push(performance.now() - t);
}
const rows = store.rowCount();
db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
const bytes = statSync(file).size;
await sink.shutdown();
store.close();
rmSync(dir, { recursive: true, force: true });

const perRecord = Number(sinkNs) / records;
const perRecordWindows = Number(windowsNs) / records;
console.error(`history: ${DAYS} days × 1 answer/s × ${METRICS.length} metrics → ${(bytes / 1e6).toFixed(2)} MB on disk, ${rows} rollup rows; sink ${perRecord.toFixed(0)} ns/record (windows ${perRecordWindows.toFixed(0)} ns); front door 24 h ${median(times).toFixed(1)} ms; maintenance ${maintainMs.toFixed(1)} ms`);
emit({ bench: 'history', figure: 'history_store_bytes_7d', value: bytes, unit: 'bytes', baseline: null, ratio: null });
emit({ bench: 'history', figure: 'history_rows_7d', value: rows, unit: 'rows', baseline: null, ratio: null });
emit({ bench: 'history', figure: 'history_sink_ns_per_record', value: perRecord, unit: 'ns', baseline: perRecordWindows, ratio: perRecord / perRecordWindows });
emit({ bench: 'history', figure: 'history_front_door_ms', value: median(times), unit: 'ms', baseline: null, ratio: null });
emit({ bench: 'history', figure: 'history_maintain_ms', value: maintainMs, unit: 'ms', baseline: null, ratio: null });

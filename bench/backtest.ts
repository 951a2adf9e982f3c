/**
 * Alert replay and evaluation cost (bench runner: bench/run.ts):
 *  - `backtest_records_per_s`: `ragwatch alerts backtest` on score records as JSON lines (parse,
 *    validate, sort, replay through the threshold and change evaluators at the default 15 s step), on
 *    one core; baseline: JSON.parse alone of the same lines (ratio = replay / parse throughput).
 *    Target ≥ 16,667 records/s (a million in under a minute);
 *  - `change_evaluate_ms_240_series`, `threshold_evaluate_ms_240_series`: one evaluation of the change
 *    alerts (both tiers) and of the threshold alerts (with diagnosis) at 20 services × 12 metrics.
 */
import { ChangeMonitor } from '../src/change/monitor.ts';
import { changeRulesFromConfig } from '../src/change/rules.ts';
import { loadConfig } from '../src/config/load.ts';
import { ScoreMetrics } from '../src/metrics/score-metrics.ts';
import { createInstruments } from '../src/telemetry/instruments.ts';
import { backtest } from '../src/roles/backtest.ts';
import type { ScoreRecord } from '../src/triplet.ts';
import { QUICK, emit, median } from './lib.ts';

const N = QUICK ? 200_000 : 1_000_000;
const SERVICES = 20;
const METRICS = ['groundedness', 'faithfulness', 'hallucination_free', 'source_precision', 'source_fact_precision', 'source_query_coverage', 'response_precision', 'response_query_coverage', 'response_self_distinctness', 'context_relevancy', 'answer_relevancy', 'completeness'] as const;
const START = Date.UTC(2026, 0, 1);

// A million records a month (0.39/s), 5 % of answers at 0.5, the rest at 0.95; four metrics each (an LLM judge's record).
// Quick mode replays fewer days at the same density, so the figure (evaluation steps + records) stays comparable.
let seed = 42;
const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
const spanMs = (N / 1_000_000) * 30 * 86_400_000;
const lines: string[] = [];
for (let i = 0; i < N; i++) {
  const bad = random() < 0.05;
  const record: ScoreRecord = {
    tripletId: `t${i}`, traceId: i.toString(16).padStart(32, '0'), service: `svc-${i % 4}`, stratum: 'all', weight: 1,
    timestamp: new Date(START + Math.floor((i / N) * spanMs)).toISOString(), judge: { kind: 'llm', model: 'm' },
    scores: { groundedness: bad ? 0.5 : 0.95, faithfulness: bad ? 0.5 : 0.95, hallucination_free: bad ? 0.6 : 1, source_precision: 0.8 },
    skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [], usage: { calls: 3, inputTokens: 3000, outputTokens: 300, durationMs: 900 },
  };
  lines.push(JSON.stringify(record));
}
const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false } } });

let parsed = 0;
const parseStart = performance.now();
for (const l of lines) parsed += (JSON.parse(l) as { weight: number }).weight;
const parseS = (performance.now() - parseStart) / 1000;

const started = performance.now();
const report = await backtest(config, lines);
const replayS = (performance.now() - started) / 1000;
if (report.records !== N || parsed !== N) throw new Error(`replayed ${report.records} of ${N}`);
const value = Math.round(N / replayS);
console.error(`backtest: ${N} records in ${replayS.toFixed(1)} s (${value}/s; JSON.parse alone ${Math.round(N / parseS)}/s), ${report.alerts.length} alert instances`);
emit({ bench: 'alerts', figure: 'backtest_records_per_s', value, unit: 'records/s', baseline: Math.round(N / parseS), ratio: Number((value / (N / parseS)).toFixed(4)) });

// One evaluation at 20 services × 12 metrics, both tiers, after a day of traffic.
let now = START;
const all = loadConfig({ env: {}, overrides: { alerts: { metrics: Object.fromEntries(METRICS.map((m) => [m, { threshold: 0.6, severity: 'page' }])) } } });
const monitor = new ChangeMonitor({ ...changeRulesFromConfig(all.alerts), now: () => now });
const threshold = new ScoreMetrics({ config: all, instruments: createInstruments({ processMetrics: false }), now: () => now });
for (let minute = 0; minute < 24 * 60; minute += 1) {
  now = START + minute * 60_000;
  for (let s = 0; s < SERVICES; s++) {
    const scores = Object.fromEntries(METRICS.map((m) => [m, random() < 0.05 ? 0.4 : 0.9]));
    const record: ScoreRecord = { tripletId: 't', traceId: 't', service: `svc-${s}`, stratum: 'all', weight: 1, timestamp: '', judge: { kind: 'llm' }, scores, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 } };
    monitor.onRecord(record);
    if (minute >= 23 * 60) threshold.onRecord(record);
  }
}
for (const [figure, evaluate] of [['change_evaluate_ms_240_series', () => monitor.evaluate()], ['threshold_evaluate_ms_240_series', () => threshold.evaluator.evaluate()]] as const) {
  const times: number[] = [];
  for (let i = 0; i < (QUICK ? 20 : 100); i++) {
    now += 15_000;
    const t0 = performance.now();
    evaluate();
    times.push(performance.now() - t0);
  }
  emit({ bench: 'alerts', figure, value: Number(median(times).toFixed(3)), unit: 'ms', baseline: null, ratio: null });
}

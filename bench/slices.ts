/**
 * Slice alerts' cost (bench runner: bench/run.ts), at 20 services × 12 metrics × 3 releases × 10 routes
 * (issue 37's size), after hours of traffic so every slice has its counts and its reference:
 *  - `slices_evaluate_ms`: one evaluation of every slice (references, thresholds, CUSUM checks, release
 *    verdicts), median of 20; target < 50 ms, gated (the work is fixed by the bounded slices, whatever
 *    the traffic); baseline: one evaluation of the change alerts (both tiers) of the same 240 series;
 *  - `slice_entry_bytes`: memory per slice × metric × judge (its ring of 15-minute counts over 27 hours,
 *    a typed array, and its CUSUM state), from the heap and array buffers before and after the slices
 *    were made; gated < 8 KB.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ChangeMonitor } from '../src/change/monitor.ts';
import { changeRulesFromConfig } from '../src/change/rules.ts';
import { loadConfig } from '../src/config/load.ts';
import { SliceMonitor } from '../src/slices/monitor.ts';
import { sliceSettingsFromConfig } from '../src/slices/settings.ts';
import type { ScoreRecord } from '../src/triplet.ts';
import { QUICK, emit, median } from './lib.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const SERVICES = 20;
const RELEASES = 3;
const ROUTES = 10;
const METRICS = ['groundedness', 'faithfulness', 'hallucination_free', 'source_precision', 'source_fact_precision', 'source_query_coverage', 'response_precision', 'response_query_coverage', 'response_self_distinctness', 'context_relevancy', 'answer_relevancy', 'completeness'] as const;
const HOURS = QUICK ? 3 : 12;
const START = Date.UTC(2026, 0, 1);

const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, alerts: { metrics: Object.fromEntries(METRICS.map((m) => [m, { threshold: 0.6, severity: 'page' }])) } } });
let now = START;
let seed = 7;
const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);

/** Heap and array buffers (the counts rings are typed arrays, outside the JS heap). */
const used = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
/**
 * Collects until the figure stops falling. One `gc()` is not enough: V8 frees a dead ArrayBuffer's
 * backing store after the collection that found it, so `arrayBuffers` right after one `gc()` still held
 * the dropped change monitor's rings in some runs (15.4 MB in most, 33–43 MB in others: 2 of 6).
 */
function settledUsed(): number {
  let last = Infinity;
  for (let i = 0; i < 10; i++) {
    gc();
    const current = used();
    if (current >= last) return current;
    last = current;
  }
  return last;
}
const heapBefore = settledUsed();
const slices = new SliceMonitor({ ...sliceSettingsFromConfig(config.alerts), now: () => now });
const held: { change?: ChangeMonitor } = {};
held.change = new ChangeMonitor({ ...changeRulesFromConfig(config.alerts), now: () => now });
// Every service answers on every release (60/25/15 %) and route, 12 metrics per answer; a minute at a time.
for (let minute = 0; minute < HOURS * 60; minute++) {
  for (let s = 0; s < SERVICES; s++) {
    for (let i = 0; i < 12; i++) {
      now = START + minute * 60_000 + s * 100 + i;
      const u = random();
      const scores = Object.fromEntries(METRICS.map((m) => [m, random() < 0.05 ? 0.4 : 0.9])) as ScoreRecord['scores'];
      const record: ScoreRecord = {
        tripletId: 't', traceId: 't', service: `svc-${s}`, release: `v${u < 0.6 ? 1 : u < 0.85 ? 2 : 3}`, route: `/r${Math.floor(random() * ROUTES)}`, stratum: 'all', weight: 1, timestamp: '',
        judge: { kind: 'llm' }, scores, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 },
      };
      slices.onRecord(record);
      held.change!.onRecord(record);
    }
  }
}
const entries = slices.status().length;
if (entries !== SERVICES * METRICS.length * (RELEASES + ROUTES)) throw new Error(`expected ${SERVICES * METRICS.length * (RELEASES + ROUTES)} slice entries, got ${entries}`);

const sliceMs: number[] = [];
const changeMs: number[] = [];
for (let i = 0; i < 20; i++) {
  now += 15_000;
  let t = performance.now();
  slices.evaluate();
  sliceMs.push(performance.now() - t);
  t = performance.now();
  held.change!.evaluate();
  changeMs.push(performance.now() - t);
}
const value = median(sliceMs);
const baseline = median(changeMs);
const tested = slices.status().filter((s) => s.state !== 'untested').length;
console.error(`slices: ${entries} slice entries (${tested} tested), one evaluation ${value.toFixed(1)} ms; change alerts of the same 240 series ${baseline.toFixed(1)} ms`);
emit({ bench: 'slices', figure: 'slices_evaluate_ms', value, unit: 'ms', baseline, ratio: value / baseline });

// Heap of the slices alone: drop the change monitor, collect, and attribute the rest to the slice entries.
delete held.change;
const heapAfter = settledUsed();
const perEntry = (heapAfter - heapBefore) / entries;
console.error(`slices: heap ${((heapAfter - heapBefore) / 1e6).toFixed(1)} MB for ${entries} slice entries and ${SERVICES * METRICS.length} service totals (${Math.round(perEntry)} B per entry)`);
emit({ bench: 'slices', figure: 'slice_entry_bytes', value: perEntry, unit: 'bytes', baseline: null, ratio: null });
if (slices.releases().length !== SERVICES) throw new Error('every service should have its releases compared');

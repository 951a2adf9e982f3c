/**
 * Calibration cost (bench runner: bench/run.ts):
 *  - per scored triplet on the scoring path, what a loaded calibration adds to the quality monitor's
 *    `onRecord` (the map, the prediction set, two window updates), as a ratio to the embedded judge's
 *    own time on the same HaluEval-derived triplets, measured in this run (target ≤ 0.01);
 *  - the time to refit on 10,000 labels (on the worker thread: reported, it never runs on the scorer).
 */
import { readFileSync } from 'node:fs';
import { fitCalibration } from '../src/calibration/fit.ts';
import { saveCalibrationFile } from '../src/calibration/load-file.ts';
import { loadConfig } from '../src/config/load.ts';
import { EmbeddedJudge } from '../src/judges/embedded/embedded-judge.ts';
import { createInstruments } from '../src/telemetry/instruments.ts';
import { QualityMonitor } from '../src/roles/quality.ts';
import { instrumentsOptionsFromConfig } from '../src/telemetry/instruments.ts';
import { scoreRecordOf } from '../src/scorer/score-record.ts';
import type { SampledTriplet, ScoreRecord } from '../src/triplet.ts';
import { QUICK, emit, median } from './lib.ts';

const N = QUICK ? 40 : 100;
interface Row { knowledge: string; question: string; right_answer: string; hallucinated_answer: string }
const rows = readFileSync(new URL('../scripts/data/halueval-qa-sample.jsonl', import.meta.url), 'utf8').trim().split('\n').slice(0, N / 2).map((l) => JSON.parse(l) as Row);
const triplets: SampledTriplet[] = rows.flatMap((r, i) => [r.right_answer, r.hallucinated_answer].map((answer, k) => ({
  id: `c${i}-${k}`, traceId: `${i * 2 + k}`.padStart(32, '3'), spanId: 's', service: 'bench', timestamp: new Date(0).toISOString(), query: r.question,
  sources: [{ content: r.knowledge }], response: answer, latency: { durationMs: 0 }, convention: 'custom' as const, sampling: { weight: 1, stratum: 'all', rule: 'all' },
})));

// The judge's own cost per triplet: a fresh judge each time (model loaded, caches empty: new traffic) —
// with a vector cache of its own, or the process-wide one would answer the second repetition.
const records: ScoreRecord[] = [];
const judgeMs: number[] = [];
for (let rep = 0; rep < 2; rep++) {
  const judge = new EmbeddedJudge({ embeddingCacheSize: 10_000 });
  await judge.init();
  const started = performance.now();
  for (const t of triplets) {
    const r = await judge.score(t);
    if (r.ok && rep === 0) records.push(scoreRecordOf(t, judge, r));
  }
  judgeMs.push((performance.now() - started) / triplets.length);
  await judge.shutdown();
}

// The calibration's share of onRecord: with and without a loaded calibration, same records.
const pts = Array.from({ length: 2_000 }, (_, i) => ({ id: `p${i}`, score: (i % 100) / 100, label: (i % 7 < (i % 100) / 15 ? 1 : 0) as 0 | 1 }));
const model = fitCalibration({ metric: 'grounding_lexical', judge: 'embedded', labelMetric: 'groundedness' }, pts).model!;
const file = `${process.env.TMPDIR ?? '/tmp'}/ragwatch-bench-calibration.json`;
saveCalibrationFile(file, [model]);
function onRecordUs(calibrated: boolean): number {
  const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false, examplesMaxRecords: 0 }, ...(calibrated ? { calibration: { file } } : {}) } });
  const quality = new QualityMonitor({ config, instruments: createInstruments(instrumentsOptionsFromConfig(config)) });
  const rounds = QUICK ? 200 : 1_000;
  for (const r of records) quality.onRecord(r);
  const started = performance.now();
  for (let k = 0; k < rounds; k++) for (const r of records) quality.onRecord(r);
  return ((performance.now() - started) * 1000) / (rounds * records.length);
}
const plain: number[] = [];
const withCal: number[] = [];
for (let rep = 0; rep < 5; rep++) {
  plain.push(onRecordUs(false));
  withCal.push(onRecordUs(true));
}
const addedUs = Math.max(0, median(withCal) - median(plain));
const judgeUs = median(judgeMs) * 1000;
emit({ bench: 'calibration', figure: 'calibration_us_per_triplet', value: addedUs, unit: 'us', baseline: null, ratio: null });
emit({ bench: 'calibration', figure: 'calibration_cost_ratio_vs_judge', value: addedUs, unit: 'us', baseline: judgeUs, ratio: addedUs / judgeUs });

// Refit time on 10,000 labels (what the worker thread spends).
const big = Array.from({ length: QUICK ? 2_000 : 10_000 }, (_, i) => {
  const s = ((i * 7919) % 10_000) / 10_000;
  return { id: `r${i}`, score: s, label: (((i * 104729) % 1000) / 1000 < s * s ? 1 : 0) as 0 | 1 };
});
const fitMs: number[] = [];
for (let rep = 0; rep < 3; rep++) {
  const started = performance.now();
  fitCalibration({ metric: 'm', judge: 'j', labelMetric: 'm' }, big);
  fitMs.push(performance.now() - started);
}
emit({ bench: 'calibration', figure: `calibration_refit_ms_${big.length}_labels`, value: median(fitMs), unit: 'ms', baseline: null, ratio: null });

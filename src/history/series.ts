/**
 * Rollups → the steps of a chart (docs/history.md): per judge, each step's weighted mean and flagged
 * share, and the **normal band** — Shewhart control limits from the `bandWindow` of history before
 * the step: the baseline's weighted mean ± 3 standard errors of a step with this step's answers
 * (σ/√n with Kish's effective n for weighted answers), and for the flagged share the p-chart limits
 * p ± 3·√(p(1−p)/n). A step outside its band is unlikely (≈ 0.3 %) to be the baseline's normal
 * variation; with fewer than {@link MIN_BASELINE_ANSWERS} answers before it a step has no band.
 * @module
 */
import { addSums, emptySums } from './pending.ts';
import type { JudgeSeries, Rollup, RollupSums, SeriesPoint } from './types.ts';

/** Standard errors on each side of the band. */
export const BAND_SIGMAS = 3;
/** Answers the baseline needs before a step gets a band. */
export const MIN_BASELINE_ANSWERS = 30;

const MIN = 60_000;
/** Steps a chart may use: round multiples of a minute. */
export const STEP_CHOICES_MS: readonly number[] = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440].map((m) => m * MIN);

/** The smallest of {@link STEP_CHOICES_MS} that draws `rangeMs` in at most `maxPoints` steps (and never finer than `minStepMs`). */
export function defaultStepMs(rangeMs: number, maxPoints = 200, minStepMs = MIN): number {
  return STEP_CHOICES_MS.find((s) => s >= minStepMs && rangeMs / s <= maxPoints) ?? STEP_CHOICES_MS.at(-1)!;
}

/** Sums of one bucket, with the weight of the answers that had a threshold (the flagged share's denominator). */
interface Bucket extends RollupSums {
  flaggedBase: number;
}

const emptyBucket = (): Bucket => ({ ...emptySums(), flaggedBase: 0 });

function add(into: Bucket, r: RollupSums & { flaggedBase?: number }): void {
  addSums(into, r);
  if (r.flaggedWeight !== undefined) into.flaggedBase += r.flaggedBase ?? r.weight;
}

function addBucket(into: Bucket, b: Bucket): void {
  addSums(into, b);
  into.flaggedBase += b.flaggedBase;
}

function sub(a: Bucket, b: Bucket): Bucket {
  return { answers: a.answers - b.answers, weight: a.weight - b.weight, weightedSum: a.weightedSum - b.weightedSum, weightedSquares: a.weightedSquares - b.weightedSquares, squaredWeights: a.squaredWeights - b.squaredWeights, flaggedWeight: (a.flaggedWeight ?? 0) - (b.flaggedWeight ?? 0), flaggedBase: a.flaggedBase - b.flaggedBase };
}

const clip = (v: number) => Math.min(1, Math.max(0, v));

/** One step's point from its bucket and the baseline before it. */
function pointOf(t: number, b: Bucket, base: Bucket): SeriesPoint {
  const has = b.weight > 0;
  const mean = has ? clip(b.weightedSum / b.weight) : null;
  const flaggedShare = has && b.flaggedBase > 0 ? clip((b.flaggedWeight ?? 0) / b.flaggedBase) : null;
  let band: SeriesPoint['band'] = null;
  let flaggedBand: SeriesPoint['flaggedBand'] = null;
  if (has && base.answers >= MIN_BASELINE_ANSWERS && base.weight > 0) {
    // Kish's effective number of answers of the step: (Σw)² / Σw².
    const n = (b.weight * b.weight) / b.squaredWeights;
    const mu = base.weightedSum / base.weight;
    const sd = Math.sqrt(Math.max(0, base.weightedSquares / base.weight - mu * mu));
    const half = (BAND_SIGMAS * sd) / Math.sqrt(n);
    band = { low: clip(mu - half), high: clip(mu + half) };
    if (flaggedShare !== null && base.flaggedBase > 0) {
      const p = clip((base.flaggedWeight ?? 0) / base.flaggedBase);
      const h = BAND_SIGMAS * Math.sqrt((p * (1 - p)) / n);
      flaggedBand = { low: clip(p - h), high: clip(p + h) };
    }
  }
  return { t, mean, flaggedShare, answers: b.answers, weight: b.weight, band, flaggedBand };
}

/**
 * The steps of `[fromMs, toMs)` (aligned to multiples of `stepMs` since the epoch), one series per judge
 * in the rollups, summed over releases. `rollups` should reach `bandWindowMs` before `fromMs` for the band;
 * they may be pre-summed per step (`flaggedBase` then says the weight that had a threshold).
 */
export function drawSeries(rollups: ReadonlyArray<Rollup & { flaggedBase?: number }>, o: { fromMs: number; toMs: number; stepMs: number; bandWindowMs: number }): JudgeSeries[] {
  const step = o.stepMs;
  const start = Math.floor(o.fromMs / step) * step;
  const bandSteps = Math.max(1, Math.ceil(o.bandWindowMs / step));
  const first = start - bandSteps * step;
  const n = Math.max(0, Math.ceil((o.toMs - first) / step));
  const byJudge = new Map<string, Bucket[]>();
  for (const r of rollups) {
    if (r.startMs < first || r.startMs >= o.toMs) continue;
    let buckets = byJudge.get(r.judge);
    if (!buckets) byJudge.set(r.judge, (buckets = Array.from({ length: n }, emptyBucket)));
    add(buckets[Math.floor((r.startMs - first) / step)]!, r);
  }
  return [...byJudge]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([judge, buckets]) => {
      // Prefix sums: the baseline of step k is prefix[k] − prefix[k − bandSteps].
      const prefix: Bucket[] = [emptyBucket()];
      for (const b of buckets) {
        const next = { ...prefix.at(-1)! };
        addBucket(next, b);
        prefix.push(next);
      }
      const points: SeriesPoint[] = [];
      for (let k = bandSteps; k < n; k++) points.push(pointOf(first + k * step, buckets[k]!, sub(prefix[k]!, prefix[k - bandSteps]!)));
      return { judge, points };
    });
}

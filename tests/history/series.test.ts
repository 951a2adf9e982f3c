import { afterEach, describe, expect, it } from 'vitest';
import { defaultStepMs, drawSeries, MIN_BASELINE_ANSWERS } from '../../src/history/series.ts';
import type { Rollup } from '../../src/history/types.ts';
import { rng } from '../helpers/rng.ts';
import { DAY, HOUR, MIN, T0, feed, openHarness, record, type HistoryHarness } from './fixtures.ts';

/** One rollup of `scores` (each weight `w`) at `startMs`, flagged at or below 0.7. */
function rollup(startMs: number, scores: number[], w = 1, judge = 'embedded'): Rollup {
  return {
    service: 'rag',
    metric: 'groundedness',
    judge,
    release: '',
    startMs,
    stepMs: MIN,
    answers: scores.length,
    weight: w * scores.length,
    weightedSum: scores.reduce((a, s) => a + w * s, 0),
    weightedSquares: scores.reduce((a, s) => a + w * s * s, 0),
    squaredWeights: w * w * scores.length,
    flaggedWeight: scores.filter((s) => s <= 0.7).length * w,
  };
}

describe('the steps and the normal band', () => {
  it('band = baseline mean ± 3 σ/√n, flagged band = p ± 3√(p(1−p)/n): known answers', () => {
    // Baseline: 40 answers in the hour before, half 0.6 and half 1.0 → μ = 0.8, σ = 0.2; the 20 at 0.6 flagged (≤ 0.7), p = 0.5.
    const base = [...Array<number>(20).fill(0.6), ...Array<number>(20).fill(1)];
    const rollups = [rollup(T0 - 30 * MIN, base), rollup(T0, [0.9, 0.9, 0.9, 0.9])];
    const [s] = drawSeries(rollups, { fromMs: T0, toMs: T0 + MIN, stepMs: MIN, bandWindowMs: HOUR });
    const p = s!.points[0]!;
    expect(p).toMatchObject({ t: T0, answers: 4, weight: 4, flaggedShare: 0 });
    expect(p.mean).toBeCloseTo(0.9, 12);
    // n = 4: ± 3 · 0.2 / 2 = ± 0.3 → [0.5, 1.1] clipped to 1.
    expect(p.band!.low).toBeCloseTo(0.5, 12);
    expect(p.band!.high).toBe(1);
    // p = 0.5, n = 4: ± 3 · √(0.25/4) = ± 0.75 → [0, 1].
    expect(p.flaggedBand).toEqual({ low: 0, high: 1 });
  });

  it('weighted answers count as Kish\'s effective n; no band before MIN_BASELINE_ANSWERS answers', () => {
    const base = [...Array<number>(20).fill(0.6), ...Array<number>(20).fill(1)];
    // Step: weights 1 and 3 (two rollups of one answer) → n = 16 / 10 = 1.6.
    const rollups = [rollup(T0 - HOUR, base), rollup(T0, [0.5], 1), rollup(T0 + 1, [1], 3)];
    const p = drawSeries(rollups, { fromMs: T0, toMs: T0 + MIN, stepMs: MIN, bandWindowMs: 2 * HOUR })[0]!.points[0]!;
    expect(p.mean).toBeCloseTo((0.5 + 3) / 4, 12);
    expect(p.flaggedShare).toBeCloseTo(0.25, 12);
    expect(p.band!.low).toBeCloseTo(0.8 - (3 * 0.2) / Math.sqrt(1.6), 12);
    const few = drawSeries([rollup(T0 - HOUR, base.slice(0, MIN_BASELINE_ANSWERS - 1)), rollup(T0, [0.9])], { fromMs: T0, toMs: T0 + MIN, stepMs: MIN, bandWindowMs: 2 * HOUR });
    expect(few[0]!.points[0]!.band).toBeNull();
    // The band of a step looks back bandWindow only: the same baseline two hours earlier gives none.
    expect(drawSeries([rollup(T0 - 3 * HOUR, base), rollup(T0, [0.9])], { fromMs: T0, toMs: T0 + MIN, stepMs: MIN, bandWindowMs: 2 * HOUR })[0]!.points[0]!.band).toBeNull();
  });

  it('one series per judge, steps aligned to the epoch, empty steps without mean', () => {
    const series = drawSeries([rollup(T0 + 7 * MIN, [0.4]), rollup(T0 + 3 * MIN, [0.8], 1, 'llm')], { fromMs: T0 + 2 * MIN, toMs: T0 + 10 * MIN, stepMs: 5 * MIN, bandWindowMs: HOUR });
    expect(series.map((s) => s.judge)).toEqual(['embedded', 'llm']);
    expect(series[0]!.points.map((p) => [p.t - T0, p.mean])).toEqual([
      [0, null],
      [5 * MIN, 0.4],
    ]);
    expect(series[1]!.points.map((p) => p.answers)).toEqual([1, 0]);
  });

  it('defaultStepMs draws a window in at most 200 round steps', () => {
    expect(defaultStepMs(HOUR)).toBe(MIN);
    expect(defaultStepMs(6 * HOUR)).toBe(2 * MIN);
    expect(defaultStepMs(DAY)).toBe(10 * MIN);
    expect(defaultStepMs(7 * DAY)).toBe(60 * MIN);
    expect(defaultStepMs(HOUR, 200, 10 * MIN)).toBe(10 * MIN);
  });
});

describe('the normal band on simulated traffic (known parameters)', () => {
  let h: HistoryHarness | undefined;
  afterEach(async () => {
    await h?.cleanup();
    h = undefined;
  });

  it('holds ≥ 99 % of normal steps and none of a 0.2 drop', async () => {
    h = await openHarness({ fineRetention: '3d' });
    const random = rng(47);
    // Two days at one answer every 5 s: scores uniform on [0.5, 1] (mean 0.75, σ = 0.144); on day 2, 14:00–15:00 the mean drops by 0.2.
    const dropFrom = T0 + DAY + 14 * HOUR;
    for (let t = T0; t < T0 + 2 * DAY; t += 5_000) {
      const drop = t >= dropFrom && t < dropFrom + HOUR ? 0.2 : 0;
      feed(h, record(t, { groundedness: 0.5 + 0.5 * random() - drop }));
    }
    const r = h.history.view.series({ service: 'rag', metric: 'groundedness', fromMs: T0 + DAY, toMs: T0 + 2 * DAY, stepMs: 10 * MIN });
    const points = r.series[0]!.points;
    expect(points).toHaveLength(144);
    const inside = (p: (typeof points)[number]) => p.band !== null && p.mean! >= p.band.low && p.mean! <= p.band.high;
    const dropped = points.filter((p) => p.t >= dropFrom && p.t < dropFrom + HOUR);
    expect(dropped).toHaveLength(6);
    expect(dropped.every((p) => !inside(p) && p.mean! < p.band!.low)).toBe(true);
    // Steps before the drop: the band's nominal coverage is 99.7 %.
    const before = points.filter((p) => p.t < dropFrom);
    expect(before.filter(inside).length / before.length).toBeGreaterThanOrEqual(0.99);
    expect(points.every((p) => p.band !== null)).toBe(true);
    // The band is centred on the true mean and about 3 σ/√120 wide on each side.
    const mid = before[10]!.band!;
    expect((mid.low + mid.high) / 2).toBeCloseTo(0.75, 1);
    expect((mid.high - mid.low) / 2).toBeCloseTo((3 * 0.5) / Math.sqrt(12) / Math.sqrt(120), 2);
  });
});

/** The change test against hand-computed answers. */
import { describe, expect, it } from 'vitest';
import { baselineShare, changeVerdict, effectiveSamples, windowTest } from '../../src/change/statistic.ts';
import type { ChangeSettings, FlagCounts } from '../../src/change/types.ts';

const counts = (weight: number, flagged: number, samples = weight, weightSquares = weight): FlagCounts => ({ weight, flagged, weightSquares, samples });
const settings: ChangeSettings = { windowMs: 1_800_000, shortWindowMs: 300_000, baselineMs: 86_400_000, minBaselineSamples: 1000, minSamples: 20, z: 4, minRatio: 2, minIncrease: 0.05, tier: 'page', stepMs: 60_000, keepFiringForMs: 300_000 };

describe('change statistic', () => {
  it('effective sample size is (Σw)²/Σw²: n for equal weights, less for unequal ones', () => {
    expect(effectiveSamples(counts(100, 0))).toBe(100);
    // 10 answers of weight 1 and 10 of weight 9: Σw = 100, Σw² = 10 + 810 = 820.
    expect(effectiveSamples(counts(100, 0, 20, 820))).toBeCloseTo(12.195, 3);
    expect(effectiveSamples(counts(0, 0, 0, 0))).toBe(0);
  });

  it('z of 25 % flagged of 360 against a 5 % baseline of 1440 (hand-computed 15.59)', () => {
    const pb = baselineShare(counts(1440, 71)); // (71 + 1) / (1440 + 2) = 0.049931
    expect(pb).toBeCloseTo(0.049931, 5);
    const t = windowTest(counts(360, 90), pb, 1440, settings);
    // (0.25 − 0.049931) / sqrt(0.049931 · 0.950069 · (1/360 + 1/1440)) = 0.200069 / 0.012834
    expect(t.recent).toBe(0.25);
    expect(t.z!).toBeCloseTo(15.58, 1);
    expect(t.drop).toBe(true);
  });

  it('a significant but immaterial rise is no drop (ratio below 2×)', () => {
    const pb = baselineShare(counts(100_000, 20_000));
    const t = windowTest(counts(100_000, 22_000), pb, 100_000, settings);
    expect(t.z!).toBeGreaterThan(4);
    expect(t.drop).toBe(false);
  });

  it('fires only when both windows drop, the baseline is ready and the long window has enough answers', () => {
    const base = counts(1440, 71);
    expect(changeVerdict(base, counts(360, 90), counts(60, 15), settings).firing).toBe(true);
    expect(changeVerdict(base, counts(360, 90), counts(60, 3), settings).firing).toBe(false);
    expect(changeVerdict(counts(900, 44), counts(360, 90), counts(60, 15), settings)).toMatchObject({ firing: false, baselineReady: false, baseline: null });
    expect(changeVerdict(base, counts(19, 19), counts(19, 19), settings).firing).toBe(false);
    expect(changeVerdict(base, counts(0, 0, 0, 0), counts(0, 0, 0, 0), settings).long).toEqual({ recent: null, z: null, samples: 0, drop: false });
  });
});

/**
 * The change test (docs/alerts.md): a one-sided two-proportion z-test of the recent flagged share
 * against the baseline's, with effective sample sizes (Σw)²/Σw² for weighted answers, plus a minimum
 * effect. The generated PromQL rules compute the same quantities from the same counters.
 * @module
 */
import type { ChangeSettings, ChangeVerdict, FlagCounts, WindowTest } from './types.ts';

/** Effective sample size of weighted answers; 0 without any. */
export function effectiveSamples(c: FlagCounts): number {
  return c.weightSquares > 0 ? (c.weight * c.weight) / c.weightSquares : 0;
}

/** The baseline's flagged share, Laplace-smoothed so an all-good baseline still has a variance. */
export function baselineShare(c: FlagCounts): number {
  return (c.flagged + 1) / (c.weight + 2);
}

/**
 * The baseline share's upper bound (two standard errors above it): the minimum effect is measured from
 * here, so a baseline that came out low by chance (a small one, right after a cold start) does not make
 * an ordinary window look like a material rise.
 */
export function baselineHigh(pb: number, nb: number): number {
  return nb > 0 ? pb + 2 * Math.sqrt((pb * (1 - pb)) / nb) : pb;
}

/** Tests one recent window against the baseline share `pb` (with its effective size `nb`). */
export function windowTest(recent: FlagCounts, pb: number, nb: number, s: Pick<ChangeSettings, 'z' | 'minRatio' | 'minIncrease'>): WindowTest {
  if (recent.weight <= 0 || recent.samples === 0) return { recent: null, z: null, samples: recent.samples, drop: false };
  const pr = recent.flagged / recent.weight;
  const nr = effectiveSamples(recent);
  const variance = pb * (1 - pb) * (1 / nr + (nb > 0 ? 1 / nb : 0));
  const z = variance > 0 ? (pr - pb) / Math.sqrt(variance) : null;
  const high = baselineHigh(pb, nb);
  const drop = z !== null && z >= s.z && pr >= s.minRatio * high && pr - high >= s.minIncrease;
  return { recent: pr, z, samples: recent.samples, drop };
}

/** The verdict of one series from its baseline, long and short window counts. */
export function changeVerdict(baseline: FlagCounts, long: FlagCounts, short: FlagCounts, s: ChangeSettings): ChangeVerdict {
  const baselineReady = baseline.samples >= s.minBaselineSamples;
  const pb = baselineShare(baseline);
  const nb = effectiveSamples(baseline);
  const l = windowTest(long, pb, nb, s);
  const sh = windowTest(short, pb, nb, s);
  return {
    baseline: baselineReady ? pb : null,
    baselineSamples: baseline.samples,
    baselineReady,
    long: l,
    short: sh,
    firing: baselineReady && l.samples >= s.minSamples && l.drop && sh.drop,
  };
}

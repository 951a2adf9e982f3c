/**
 * How fast any test could page a canary within its share of the false-page budget (docs/alerts.md,
 * "Drops inside a slice"): the Neyman–Pearson bound. An oracle that knows when the canary started and
 * how bad it is, and sees every outcome of its answers in the half-hour after (flagged, scored above
 * the cut, skipped: three Poisson counts), is most powerful with the likelihood-ratio test; its power
 * at a false-alarm probability α per half-hour bounds every live test, which knows neither. With
 * 1,440 disjoint half-hours in 30 days, a slice holding `b` false pages a month has α ≤ b / 1,440.
 * Rates are the embedded judge's real ones (HaluEval development set), as in the simulations.
 */
import { gammaln } from 'simple-statistics';
import { describe, expect, it } from 'vitest';
import { outcomeShares } from '../helpers/real-scores.ts';

const HALF_HOURS_PER_30_DAYS = 1_440;
/** The canary's share of the budget in the simulations: 1 false page / 30 days over 4 tested (dimension, metric) pairs. */
const CANARY_BUDGET = 0.25;

const poissonPmf = (x: number, mean: number) => Math.exp(-mean + x * Math.log(mean) - gammaln(x + 1));

/** Every outcome of independent Poisson counts (means `m0` under H0, `m1` under H1), by likelihood ratio, highest first. */
function outcomesByRatio(m0: readonly number[], m1: readonly number[]): Array<{ llr: number; p0: number; p1: number }> {
  let cells = [{ llr: 0, p0: 1, p1: 1 }];
  m0.forEach((mean0, i) => {
    const mean1 = m1[i]!;
    const top = Math.ceil(Math.max(mean0, mean1) + 12 * Math.sqrt(Math.max(mean0, mean1)) + 12);
    const counts = Array.from({ length: top + 1 }, (_, x) => ({ llr: x * Math.log(mean1 / mean0) - (mean1 - mean0), p0: poissonPmf(x, mean0), p1: poissonPmf(x, mean1) }));
    cells = cells.flatMap((c) => counts.map((k) => ({ llr: c.llr + k.llr, p0: c.p0 * k.p0, p1: c.p1 * k.p1 })));
  });
  return cells.sort((a, b) => b.llr - a.llr);
}

type Cells = ReturnType<typeof outcomesByRatio>;

/** Takes outcomes, highest ratio first (the last one in part: a randomized test), until side `by` reaches `bound`; both sides then. */
function rejectUntil(cells: Cells, by: 'p0' | 'p1', bound: number): { p0: number; p1: number } {
  const sum = { p0: 0, p1: 0 };
  for (const c of cells) {
    if (sum[by] + c[by] >= bound) {
      const part = (bound - sum[by]) / c[by];
      return { p0: sum.p0 + part * c.p0, p1: sum.p1 + part * c.p1 };
    }
    sum.p0 += c.p0;
    sum.p1 += c.p1;
  }
  return sum;
}

/** Power of the most powerful (randomized) test at false-alarm probability `alpha`. */
const powerAt = (cells: Cells, alpha: number) => rejectUntil(cells, 'p0', alpha).p1;
/** Smallest false-alarm probability of a test with power `power`. */
const alphaFor = (cells: Cells, power: number) => rejectUntil(cells, 'p1', power).p0;

/** The oracle's outcomes for the half-hour after a canary of `share` of 0.2 answers/s starts, `bad` of its answers hallucinated (5 % healthy). */
function canaryHalfHour(share: number, bad: number) {
  const answers = 0.2 * share * 1_800;
  const means = (h: number) => Object.values(outcomeShares(h)).map((p) => p * answers);
  return outcomesByRatio(means(0.05), means(bad));
}

describe('the Neyman–Pearson bound on paging a canary within 30 minutes', () => {
  it('computes a known answer: one Poisson count, the test is its upper tail', () => {
    const cells = outcomesByRatio([1], [10]);
    let alpha = 0;
    let power = 0;
    for (let x = 5; x < 80; x++) {
      alpha += poissonPmf(x, 1);
      power += poissonPmf(x, 10);
    }
    expect(powerAt(cells, alpha)).toBeCloseTo(power, 9);
    expect(alphaFor(cells, power)).toBeCloseTo(alpha, 9);
  });

  it('a 10 % canary with half its answers hallucinated: no test catches 95 % in 30 min on its budget share', () => {
    const cells = canaryHalfHour(0.1, 0.5);
    const atShare = powerAt(cells, CANARY_BUDGET / HALF_HOURS_PER_30_DAYS);
    const needed = alphaFor(cells, 0.95) * HALF_HOURS_PER_30_DAYS;
    console.info(`oracle, 10 % canary half bad: power ${atShare.toFixed(3)} at its share (0.25 false pages / 30 d); 95 % needs ${needed.toFixed(2)} false pages / 30 d`);
    expect(atShare).toBeLessThan(0.95);
    expect(needed).toBeGreaterThan(CANARY_BUDGET);
  });

  it('a 5 % canary whose every answer is hallucinated: the bound allows 30 min (the simulation reaches it)', () => {
    expect(powerAt(canaryHalfHour(0.05, 1), CANARY_BUDGET / HALF_HOURS_PER_30_DAYS)).toBeGreaterThan(0.99);
  });
});

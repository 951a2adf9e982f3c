/**
 * The slice and release statistics against known answers: the binomial tail of reference/alerting.md,
 * Wilson's interval, Newcombe's published example (method 10), the CUSUM's ARL₀ by simulation against
 * the bound the false-page budget relies on, and the release verdicts.
 */
import { describe, expect, it } from 'vitest';
import { ARL_FACTOR, alternativeShare, bernoulliLlr, binomialTail, compareMetric, cusumStep, cusumThreshold, newcombeDifference, overallVerdict, wilson, zOf } from '../../src/slices/statistic.ts';
import { rng } from '../helpers/rng.ts';

const RELEASES = { alphaWorse: 0.001, alphaNoWorse: 0.05, margin: 0.05, minRatio: 2, minIncrease: 0.05, minSamples: 20 };

describe('tests on counts', () => {
  it('binomial tail: P(X ≥ 5 | 12, 0.026) ≈ 8·10⁻⁶ (reference/alerting.md), and the edges', () => {
    expect(binomialTail(5, 12, 0.026)).toBeCloseTo(8.0747e-6, 9);
    expect(binomialTail(0, 12, 0.026)).toBe(1);
    expect(binomialTail(13, 12, 0.5)).toBe(0);
    expect(binomialTail(6, 12, 0.5)).toBeCloseTo(0.6128, 4);
  });

  it("Wilson's interval: 0/10 → [0, 0.2775], 5/10 → [0.2366, 0.7634] at 95 %", () => {
    const z = zOf(0.025);
    expect(z).toBeCloseTo(1.959964, 6);
    expect(zOf(0.001)).toBeCloseTo(3.090232, 6);
    const a = wilson(0, 10, z);
    expect(a.low).toBeCloseTo(0, 12);
    expect(a.high).toBeCloseTo(0.2775, 3);
    const b = wilson(5, 10, z);
    expect(b.low).toBeCloseTo(0.2366, 3);
    expect(b.high).toBeCloseTo(0.7634, 3);
  });

  it("Newcombe's hybrid score interval reproduces his example (56/70 − 48/80: 0.0524 to 0.3339)", () => {
    const d = newcombeDifference(48, 80, 56, 70, zOf(0.025));
    expect(d.diff).toBeCloseTo(0.2, 10);
    expect(d.low).toBeCloseTo(0.0524, 3);
    expect(d.high).toBeCloseTo(0.3339, 3);
  });

  it('CUSUM: a flagged answer adds ln(p1/p0), a good one ln((1−p1)/(1−p0)), never below 0', () => {
    const llr = bernoulliLlr(0.05, 0.45);
    expect(llr.flagged).toBeCloseTo(Math.log(9), 12);
    expect(llr.good).toBeCloseTo(Math.log(0.55 / 0.95), 12);
    expect(cusumStep(0, 0, llr)).toBe(0);
    expect(cusumStep(0, 1, llr)).toBeCloseTo(Math.log(9), 12);
    // A calibrated P(bad) of 0.5 adds half of each.
    expect(cusumStep(1, 0.5, llr)).toBeCloseTo(1 + 0.5 * llr.flagged + 0.5 * llr.good, 12);
    expect(alternativeShare(0.03, 0.4, 2)).toBeCloseTo(0.43, 12);
    expect(alternativeShare(0.5, 0.4, 2)).toBe(0.99);
  });

  it(`ARL₀ of the CUSUM is at least ${ARL_FACTOR}·e^h (simulated, p0 from 1 % to 20 %, shift 0.4): the false-page budget holds`, () => {
    const random = rng(11);
    const h = 5;
    for (const p0 of [0.01, 0.03, 0.1, 0.2]) {
      const llr = bernoulliLlr(p0, alternativeShare(p0, 0.4, 2));
      const runs = 400;
      let total = 0;
      for (let i = 0; i < runs; i++) {
        let s = 0;
        let n = 0;
        while (s < h) {
          n++;
          s = cusumStep(s, random() < p0 ? 1 : 0, llr);
        }
        total += n;
      }
      expect(total / runs, `p0 ${p0}`).toBeGreaterThan(ARL_FACTOR * Math.exp(h));
    }
  });

  it('the threshold grows with the answers and the tested series, and falls with the budget', () => {
    // 0.2 answers/s for 30 days, 4 tested series, 1 false page: ln(518400 · 4 / 5).
    expect(cusumThreshold(518_400, 4, 1)).toBeCloseTo(Math.log((518_400 * 4) / ARL_FACTOR), 10);
    expect(cusumThreshold(518_400, 4, 2)).toBeCloseTo(cusumThreshold(518_400, 4, 1) - Math.log(2), 10);
    expect(cusumThreshold(10, 1, 1)).toBe(3);
  });
});

describe('release verdicts', () => {
  it('worse: an hour of a broken 5 % canary (19 of 36 flagged) against 3 % of 650', () => {
    const c = compareMetric({ n: 650, flagged: 20 }, { n: 36, flagged: 19 }, RELEASES, 2);
    expect(c.verdict).toBe('worse');
    expect(c.statistic.low).toBeGreaterThan(0);
  });

  it('inconclusive with too few answers, or an interval that straddles the margin', () => {
    expect(compareMetric({ n: 650, flagged: 20 }, { n: 10, flagged: 8 }, RELEASES, 1).verdict).toBe('inconclusive');
    expect(compareMetric({ n: 650, flagged: 20 }, { n: 40, flagged: 2 }, RELEASES, 1).verdict).toBe('inconclusive');
  });

  it('no_worse once the upper bound of the difference is below the margin', () => {
    const c = compareMetric({ n: 3000, flagged: 95 }, { n: 400, flagged: 12 }, RELEASES, 1);
    expect(c.verdict).toBe('no_worse');
    expect(c.statistic.high).toBeLessThan(0.05);
  });

  it('not "worse" on a significant but immaterial rise (3 % → 6 %, +3 points)', () => {
    expect(compareMetric({ n: 20_000, flagged: 600 }, { n: 5_000, flagged: 300 }, RELEASES, 1).verdict).not.toBe('worse');
  });

  it('one verdict from the metrics: worse wins, no_worse needs all', () => {
    expect(overallVerdict(['no_worse', 'worse'])).toBe('worse');
    expect(overallVerdict(['no_worse', 'no_worse'])).toBe('no_worse');
    expect(overallVerdict(['no_worse', 'inconclusive'])).toBe('inconclusive');
    expect(overallVerdict([])).toBe('inconclusive');
  });
});

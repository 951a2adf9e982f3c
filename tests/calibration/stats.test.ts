/**
 * The calibration statistics against known answers: Platt and isotonic recover a known link function
 * from simulated labels, PAVA and the agreement measures match hand-computed cases, split conformal
 * covers at least 1 − α over repeated random splits, and a full fit improves a miscalibrated judge.
 */
import { describe, expect, it } from 'vitest';
import { fitConformal, predictionSet } from '../../src/calibration/conformal.ts';
import { applyMap, fitCalibration } from '../../src/calibration/fit.ts';
import { fitIsotonic, isotonicPredict } from '../../src/calibration/isotonic.ts';
import { auc, brier, ece, kappa, spearman } from '../../src/calibration/measures.ts';
import { fitPlatt, plattPredict } from '../../src/calibration/platt.ts';
import type { LabelledScore } from '../../src/calibration/types.ts';
import { rng } from '../helpers/rng.ts';

/** n answers with uniform scores and human labels drawn from P(good | s) = link(s). */
function simulate(n: number, link: (s: number) => number, seed: number): LabelledScore[] {
  const r = rng(seed);
  return Array.from({ length: n }, (_, i) => {
    const score = r();
    return { id: `a${seed}-${i}`, score, label: r() < link(score) ? 1 : 0 };
  });
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

describe('Platt scaling', () => {
  it('recovers a known logistic link (a = −8, b = 4) from 20,000 simulated labels', () => {
    const p = fitPlatt(simulate(20_000, (s) => sigmoid(8 * s - 4), 1));
    expect(p.a).toBeCloseTo(-8, 0);
    expect(Math.abs(p.a + 8)).toBeLessThan(0.4);
    expect(Math.abs(p.b - 4)).toBeLessThan(0.25);
    expect(plattPredict(p, 0.5)).toBeCloseTo(0.5, 1);
  });

  it('stays finite on perfectly separated labels and refuses one class', () => {
    const sep: LabelledScore[] = [0.1, 0.2, 0.3, 0.7, 0.8, 0.9].map((score, i) => ({ id: String(i), score, label: score > 0.5 ? 1 : 0 }));
    const p = fitPlatt(sep);
    expect(Number.isFinite(p.a) && Number.isFinite(p.b)).toBe(true);
    expect(plattPredict(p, 0.9)).toBeGreaterThan(0.7);
    expect(plattPredict(p, 0.1)).toBeLessThan(0.3);
    expect(() => fitPlatt(sep.filter((x) => x.label === 1))).toThrow(RangeError);
  });
});

describe('isotonic regression (PAVA)', () => {
  it('pools adjacent violators as computed by hand', () => {
    const pts: LabelledScore[] = [1, 0, 1, 0, 1].map((label, i) => ({ id: String(i), score: i + 1, label: label as 0 | 1 }));
    const fit = fitIsotonic(pts);
    expect(fit.y).toEqual([0.5, 0.5, 1]);
    expect(fit.x).toEqual([1.5, 3.5, 5]);
    expect(isotonicPredict(fit, 0)).toBe(0.5);
    expect(isotonicPredict(fit, 4.25)).toBeCloseTo(0.75, 12);
    expect(isotonicPredict(fit, 9)).toBe(1);
  });

  it('recovers a known non-logistic link P(good | s) = s² within 0.04', () => {
    const fit = fitIsotonic(simulate(20_000, (s) => s * s, 2));
    for (const s of [0.2, 0.5, 0.8]) expect(Math.abs(isotonicPredict(fit, s) - s * s)).toBeLessThan(0.04);
    for (let i = 1; i < fit.y.length; i++) expect(fit.y[i]!).toBeGreaterThanOrEqual(fit.y[i - 1]!);
  });
});

describe('agreement measures (hand-computed)', () => {
  it('Brier, ECE, AUC, Spearman, κ', () => {
    expect(brier([0.8, 0.3], [1, 0])).toBeCloseTo(0.065, 12);
    // Two bins used: [0.1, 0.15] → mean p 0.125, mean y 0; [0.85, 0.95] → 0.9 vs 1: ECE = ½·0.125 + ½·0.1.
    expect(ece([0.1, 0.15, 0.85, 0.95], [0, 0, 1, 1])).toBeCloseTo(0.1125, 12);
    expect(auc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])).toBe(0.75);
    expect(auc([0.5, 0.5], [0, 1])).toBe(0.5);
    expect(auc([0.5, 0.6], [1, 1])).toBeNull();
    expect(spearman([1, 2, 3, 4], [10, 20, 30, 45])).toBeCloseTo(1, 12);
    // judge good = [1,1,0,0]; human = [1,0,0,0]: po = 0.75, pe = 0.5·0.25 + 0.5·0.75 = 0.5 → κ = 0.5.
    expect(kappa([0.9, 0.8, 0.2, 0.1], [1, 0, 0, 0], 0.5)).toBeCloseTo(0.5, 12);
    expect(kappa([0.9, 0.8], [1, 1], 0.5)).toBeNull();
    expect(brier([], [])).toBeNull();
  });
});

describe('split conformal', () => {
  it('covers at least 1 − α over 200 random calibration/test splits (α = 0.1 and 0.2)', () => {
    for (const alpha of [0.1, 0.2]) {
      const coverages: number[] = [];
      for (let rep = 0; rep < 200; rep++) {
        const link = (s: number) => sigmoid(6 * s - 3);
        const cal = simulate(300, link, 1000 + rep);
        const test = simulate(300, link, 5000 + rep);
        const model = fitConformal(cal.map((p) => link(p.score)), cal.map((p) => p.label), alpha);
        const hits = test.filter((p) => {
          const set = predictionSet(model, link(p.score));
          return set === 'both' || (set === 'good' ? p.label === 1 : set === 'bad' ? p.label === 0 : false);
        }).length;
        coverages.push(hits / test.length);
      }
      const mean = coverages.reduce((a, b) => a + b, 0) / coverages.length;
      expect(mean).toBeGreaterThanOrEqual(1 - alpha - 0.01);
      // Marginal guarantee, not per split: individual splits scatter around it.
      expect(coverages.filter((c) => c < 1 - alpha - 0.06).length).toBeLessThan(10);
    }
  });

  it('gives every label when there are too few points for 1 − α, and {good, bad} where the judge cannot tell', () => {
    expect(fitConformal([0.9, 0.1], [1, 0], 0.1).qhat).toBe(1);
    const m = { alpha: 0.1, qhat: 0.6, n: 100 };
    expect(predictionSet(m, 0.9)).toBe('good');
    expect(predictionSet(m, 0.1)).toBe('bad');
    expect(predictionSet(m, 0.5)).toBe('both');
    expect(predictionSet({ ...m, qhat: 0.3 }, 0.5)).toBe('empty');
  });
});

describe('fitCalibration', () => {
  it('calibrates a judge whose raw score overstates quality (P(good | s) = s³): lower Brier and ECE, coverage ≈ 1 − α', () => {
    const points = simulate(5_000, (s) => s ** 3, 3);
    const { model, report } = fitCalibration({ metric: 'grounding_lexical', judge: 'embedded', labelMetric: 'groundedness' }, points, { alpha: 0.1, threshold: 0.5 });
    expect(model).toBeDefined();
    expect(report.brierCalibrated!).toBeLessThan(report.brierRaw!);
    expect(report.eceCalibrated!).toBeLessThan(0.05);
    expect(report.eceRaw!).toBeGreaterThan(0.15);
    expect(report.coverage!).toBeGreaterThan(0.86);
    expect(report.setSizes!.empty + report.setSizes!.single + report.setSizes!.both).toBeCloseTo(1, 12);
    expect(report.auc!).toBeGreaterThan(0.8);
    expect(applyMap(model!.map, 0.5)).toBeCloseTo(0.125, 1);
  });

  it('reports instead of fitting below calibration.minLabels or with one class', () => {
    const few = simulate(20, (s) => s, 4);
    expect(fitCalibration({ metric: 'm', judge: 'j', labelMetric: 'm' }, few).report.skipped).toBe('20 labels < 30 (calibration.minLabels)');
    const oneClass = simulate(100, () => 1, 5);
    const r = fitCalibration({ metric: 'm', judge: 'j', labelMetric: 'm' }, oneClass);
    expect(r.model).toBeUndefined();
    expect(r.report.skipped).toContain('one kind');
  });
});

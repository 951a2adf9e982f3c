/**
 * IRT on data simulated from known parameters. The yardstick for θ is the best any fit can do: θ by
 * maximum likelihood with the *true* item parameters (a grid search). Measured over five seeds each
 * (docs/exams.md): with 100 takers × 30 questions the joint fit's θ correlates 0.77–0.83 with the truth
 * against 0.83–0.86 for the yardstick, b 0.85–0.96, a 0.1–0.55 (discrimination is the weakest: it needs
 * many takers); with 100 × 100, θ 0.93–0.95 (yardstick 0.93–0.96), b 0.89–0.93; with 10 × 40 (400
 * answers) θ 0.85–0.89 (yardstick 0.86–0.96). The paper's iterative refinement raises the mean
 * discrimination of the kept questions.
 */
import { describe, expect, it } from 'vitest';
import { fitIrt, itemInformation, probability, refineExam, type ExamResponse } from '../../src/exams/irt.ts';
import { rng } from '../helpers/rng.ts';

function normal(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

function simulate(seed: number, takers: number, items: number, aRange: [number, number] = [0.5, 1.5]) {
  const random = rng(seed);
  const thetas = Array.from({ length: takers }, () => Math.max(-2.5, Math.min(2.5, normal(random))));
  const params = Array.from({ length: items }, () => ({ a: aRange[0] + random() * (aRange[1] - aRange[0]), b: -2 + 4 * random(), c: 0.25 }));
  const responses: ExamResponse[] = [];
  thetas.forEach((theta, t) => params.forEach((p, q) => responses.push({ taker: `m${String(t).padStart(3, '0')}`, question: `q${String(q).padStart(3, '0')}`, correct: random() < probability(theta, p) ? 1 : 0 })));
  return { thetas, params, responses };
}

/** θ by maximum likelihood with the true item parameters (grid search): the best a fit can do. */
function yardstick(responses: readonly ExamResponse[], params: ReadonlyArray<{ a: number; b: number; c: number }>, takers: number): number[] {
  const Q = params.length;
  return Array.from({ length: takers }, (_, t) => {
    let best = 0;
    let bestL = -Infinity;
    for (let g = -3; g <= 3.0001; g += 0.01) {
      let l = 0;
      params.forEach((p, q) => {
        const pr = probability(g, p);
        l += responses[t * Q + q]!.correct ? Math.log(pr) : Math.log(1 - pr);
      });
      if (l > bestL) {
        bestL = l;
        best = g;
      }
    }
    return best;
  });
}

function corr(x: number[], y: number[]): number {
  const mx = x.reduce((s, v) => s + v, 0) / x.length;
  const my = y.reduce((s, v) => s + v, 0) / y.length;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  x.forEach((v, i) => {
    sxy += (v - mx) * (y[i]! - my);
    sxx += (v - mx) ** 2;
    syy += (y[i]! - my) ** 2;
  });
  return sxy / Math.sqrt(sxx * syy);
}

describe('3PL IRT', () => {
  it('the information function peaks near the difficulty and the probability runs from c to 1', () => {
    const item = { a: 1.2, b: 0.5, c: 0.25 };
    expect(probability(-50, item)).toBeCloseTo(0.25, 9);
    expect(probability(50, item)).toBeCloseTo(1, 9);
    const grid = Array.from({ length: 601 }, (_, i) => -3 + i / 100);
    const peak = grid.reduce((best, t) => (itemInformation(t, item) > itemInformation(best, item) ? t : best));
    // With guessing the peak sits a little above b: b + ln((1 + √(1 + 8c)) / 2) / a.
    expect(peak).toBeCloseTo(0.5 + Math.log((1 + Math.sqrt(1 + 8 * 0.25)) / 2) / 1.2, 1);
  });

  it('recovers θ nearly as well as the true item parameters would, and the difficulties (100 takers × 30 questions)', () => {
    const { thetas, params, responses } = simulate(11, 100, 30);
    const fit = fitIrt(responses);
    const theta = fit.takers.map((t) => t.theta);
    const best = corr(yardstick(responses, params, 100), thetas);
    expect(corr(theta, thetas)).toBeGreaterThan(best - 0.1);
    expect(corr(theta, thetas)).toBeGreaterThan(0.75);
    expect(corr(fit.questions.map((q) => q.b), params.map((p) => p.b))).toBeGreaterThan(0.8);
    for (const q of fit.questions) {
      expect(q.a).toBeGreaterThanOrEqual(0.1);
      expect(q.a).toBeLessThanOrEqual(1.5);
      expect(q.c).toBeGreaterThanOrEqual(0.2);
      expect(q.c).toBeLessThanOrEqual(0.4);
    }
    // θ ± 1.96 se covers the true θ for most takers (the se ignores the items' own uncertainty).
    const covered = fit.takers.filter((t, i) => Math.abs(t.theta - thetas[i]!) <= 1.96 * t.se).length / thetas.length;
    expect(covered).toBeGreaterThan(0.8);
  }, 30_000);

  it('with 100 questions θ and b are close to the truth (100 takers × 100 questions)', () => {
    const { thetas, params, responses } = simulate(21, 100, 100);
    const fit = fitIrt(responses);
    expect(corr(fit.takers.map((t) => t.theta), thetas)).toBeGreaterThan(0.9);
    expect(corr(fit.questions.map((q) => q.b), params.map((p) => p.b))).toBeGreaterThan(0.85);
    expect(corr(fit.questions.map((q) => q.a), params.map((p) => p.a))).toBeGreaterThan(0.2);
  }, 60_000);

  it('ranks 10 takers from 400 answers about as well as the true item parameters would', () => {
    const { thetas, params, responses } = simulate(5, 10, 40);
    const fit = fitIrt(responses);
    expect(responses).toHaveLength(400);
    expect(corr(fit.takers.map((t) => t.theta), thetas)).toBeGreaterThan(corr(yardstick(responses, params, 10), thetas) - 0.15);
    expect(corr(fit.takers.map((t) => t.theta), thetas)).toBeGreaterThan(0.7);
  });

  it('iterative refinement drops the least discriminative questions and raises the mean discrimination', () => {
    const { responses } = simulate(3, 60, 40, [0.1, 1.5]);
    const { rounds, fit, kept } = refineExam(responses, { rounds: 3, dropShare: 0.1 });
    expect(rounds.map((r) => r.questions)).toEqual([40, 36, 33]);
    expect(kept).toHaveLength(30);
    const meanA = fit.questions.reduce((s, q) => s + q.a, 0) / fit.questions.length;
    expect(meanA).toBeGreaterThan(rounds[0]!.meanDiscrimination);
    expect(rounds[0]!.dropped).toHaveLength(4);
  }, 30_000);
});

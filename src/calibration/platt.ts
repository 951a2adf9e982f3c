/**
 * Platt scaling: P(good | s) = 1 / (1 + exp(a·s + b)), fitted by maximum likelihood with Newton's
 * method on Platt's smoothed targets (t₊ = (N₊+1)/(N₊+2), t₋ = 1/(N₋+2)), which keeps the fit finite
 * when the classes separate — Lin, Lin & Weng (2007), "A note on Platt's probabilistic outputs".
 * @module
 */
import type { LabelledScore } from './types.ts';

/** Fitted parameters. */
export interface PlattParams {
  a: number;
  b: number;
}

/** P(good) for a score. */
export function plattPredict(p: PlattParams, score: number): number {
  const f = p.a * score + p.b;
  // The two forms avoid exp overflow for large |f|.
  return f >= 0 ? Math.exp(-f) / (1 + Math.exp(-f)) : 1 / (1 + Math.exp(f));
}

/** Fits a and b; needs both classes. */
export function fitPlatt(points: readonly LabelledScore[]): PlattParams {
  const pos = points.filter((p) => p.label === 1).length;
  const neg = points.length - pos;
  if (pos === 0 || neg === 0) throw new RangeError('Platt scaling needs both labels');
  const hi = (pos + 1) / (pos + 2);
  const lo = 1 / (neg + 2);
  const t = points.map((p) => (p.label === 1 ? hi : lo));
  let a = 0;
  let b = Math.log((neg + 1) / (pos + 1));
  const objective = (a2: number, b2: number) => {
    let f = 0;
    points.forEach((p, i) => {
      const z = a2 * p.score + b2;
      // −log-likelihood, written to stay finite.
      f += z >= 0 ? t[i]! * z + Math.log1p(Math.exp(-z)) : (t[i]! - 1) * z + Math.log1p(Math.exp(z));
    });
    return f;
  };
  let fval = objective(a, b);
  for (let iter = 0; iter < 100; iter++) {
    let h11 = 1e-12;
    let h22 = 1e-12;
    let h21 = 0;
    let g1 = 0;
    let g2 = 0;
    points.forEach((p, i) => {
      const prob = plattPredict({ a, b }, p.score);
      const d2 = prob * (1 - prob);
      h11 += p.score * p.score * d2;
      h22 += d2;
      h21 += p.score * d2;
      const d1 = t[i]! - prob;
      g1 += p.score * d1;
      g2 += d1;
    });
    if (Math.abs(g1) < 1e-7 && Math.abs(g2) < 1e-7) break;
    const det = h11 * h22 - h21 * h21;
    const da = -(h22 * g1 - h21 * g2) / det;
    const db = -(-h21 * g1 + h11 * g2) / det;
    const gd = g1 * da + g2 * db;
    // Backtracking line search: Newton steps can overshoot on separable data.
    let step = 1;
    for (; step >= 1e-10; step /= 2) {
      const na = a + step * da;
      const nb = b + step * db;
      const nf = objective(na, nb);
      if (nf < fval + 1e-4 * step * gd) {
        a = na;
        b = nb;
        fval = nf;
        break;
      }
    }
    if (step < 1e-10) break;
  }
  return { a, b };
}

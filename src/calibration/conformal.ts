/**
 * Split conformal prediction for a binary label (Angelopoulos & Bates, "A Gentle Introduction to
 * Conformal Prediction", §1): on a held-apart calibration part, the nonconformity of a labelled
 * answer is 1 − P̂(its true label); q̂ is their ⌈(n+1)(1−α)⌉/n empirical quantile; an answer's
 * prediction set holds every label whose nonconformity is ≤ q̂. Then P(true label ∈ set) ≥ 1 − α over
 * exchangeable draws. {good, bad} = the judge cannot tell: a person should look.
 * @module
 */
import type { ConformalModel, PredictionSet } from './types.ts';

/** Fits q̂ from calibrated probabilities P(good) and true labels of the conformal part. */
export function fitConformal(pGood: readonly number[], y: readonly (0 | 1)[], alpha: number): ConformalModel {
  const n = pGood.length;
  if (n === 0) throw new RangeError('conformal calibration needs labelled answers');
  const scores = pGood.map((p, i) => (y[i] === 1 ? 1 - p : p)).sort((a, b) => a - b);
  const k = Math.ceil((n + 1) * (1 - alpha));
  // With too few points for 1 − α the set must be everything (q̂ = 1).
  const qhat = k > n ? 1 : scores[k - 1]!;
  return { alpha, qhat, n };
}

/** The prediction set of one answer with calibrated P(good). */
export function predictionSet(model: ConformalModel, pGood: number): PredictionSet {
  const good = 1 - pGood <= model.qhat;
  const bad = pGood <= model.qhat;
  return good && bad ? 'both' : good ? 'good' : bad ? 'bad' : 'empty';
}

/**
 * Isotonic regression by pool-adjacent-violators (PAVA): the non-decreasing step function of the score
 * closest to the labels in squared error. Prediction interpolates linearly between block centres and
 * is flat beyond the ends, as scikit-learn's `IsotonicRegression(out_of_bounds="clip")` does.
 * @module
 */
import type { LabelledScore } from './types.ts';

/** Fitted steps: block centres `x` (ascending) and their values `y` (non-decreasing). */
export interface IsotonicParams {
  x: number[];
  y: number[];
}

/** Fits the steps (needs at least one point). */
export function fitIsotonic(points: readonly LabelledScore[]): IsotonicParams {
  if (points.length === 0) throw new RangeError('isotonic regression needs points');
  const sorted = [...points].sort((p, q) => p.score - q.score);
  // Equal scores form one block first: a step function cannot separate them.
  const initial: Array<{ sumY: number; w: number; sumX: number }> = [];
  for (const [i, p] of sorted.entries()) {
    const last = initial.at(-1);
    if (last && sorted[i - 1]!.score === p.score) {
      last.sumY += p.label;
      last.sumX += p.score;
      last.w++;
    } else initial.push({ sumY: p.label, w: 1, sumX: p.score });
  }
  const blocks: typeof initial = [];
  for (const block of initial) {
    blocks.push({ ...block });
    // Pool while the last two blocks violate monotonicity.
    while (blocks.length > 1 && blocks.at(-2)!.sumY / blocks.at(-2)!.w > blocks.at(-1)!.sumY / blocks.at(-1)!.w) {
      const b = blocks.pop()!;
      const a = blocks.at(-1)!;
      a.sumY += b.sumY;
      a.sumX += b.sumX;
      a.w += b.w;
    }
  }
  return { x: blocks.map((b) => b.sumX / b.w), y: blocks.map((b) => b.sumY / b.w) };
}

/** P(good) for a score. */
export function isotonicPredict(p: IsotonicParams, score: number): number {
  const { x, y } = p;
  if (score <= x[0]!) return y[0]!;
  if (score >= x.at(-1)!) return y.at(-1)!;
  let lo = 0;
  let hi = x.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (x[mid]! <= score) lo = mid;
    else hi = mid;
  }
  const t = (score - x[lo]!) / (x[hi]! - x[lo]!);
  return y[lo]! + t * (y[hi]! - y[lo]!);
}

/**
 * Agreement measures between judge scores (or calibrated probabilities) and human labels: Brier
 * score, expected calibration error, ROC-AUC, Spearman's ρ, Cohen's κ at a threshold. Each returns
 * null where it is undefined (one class only, no variance) — never 0, 1 or NaN.
 * @module
 */
import { sampleRankCorrelation } from 'simple-statistics';

/** Mean squared difference between probability and label. */
export function brier(p: readonly number[], y: readonly (0 | 1)[]): number | null {
  if (p.length === 0) return null;
  let s = 0;
  for (let i = 0; i < p.length; i++) s += (p[i]! - y[i]!) ** 2;
  return s / p.length;
}

/** Expected calibration error over `bins` equal-width bins: Σ (nᵦ/n)·|mean p − mean y|. */
export function ece(p: readonly number[], y: readonly (0 | 1)[], bins = 10): number | null {
  if (p.length === 0) return null;
  const sums = Array.from({ length: bins }, () => ({ n: 0, p: 0, y: 0 }));
  for (let i = 0; i < p.length; i++) {
    const b = sums[Math.min(bins - 1, Math.floor(p[i]! * bins))]!;
    b.n++;
    b.p += p[i]!;
    b.y += y[i]!;
  }
  return sums.reduce((e, b) => (b.n === 0 ? e : e + (b.n / p.length) * Math.abs(b.p / b.n - b.y / b.n)), 0);
}

/** ROC-AUC (Mann–Whitney; ties count ½): P(score of a good answer > score of a bad one). */
export function auc(scores: readonly number[], y: readonly (0 | 1)[]): number | null {
  const idx = scores.map((s, i) => ({ s, y: y[i]! })).sort((a, b) => a.s - b.s);
  const pos = idx.filter((e) => e.y === 1).length;
  const neg = idx.length - pos;
  if (pos === 0 || neg === 0) return null;
  // Sum of the positives' mid-ranks.
  let rankSum = 0;
  for (let i = 0; i < idx.length; ) {
    let j = i;
    while (j < idx.length && idx[j]!.s === idx[i]!.s) j++;
    const mid = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) if (idx[k]!.y === 1) rankSum += mid;
    i = j;
  }
  return (rankSum - (pos * (pos + 1)) / 2) / (pos * neg);
}

/** Spearman's rank correlation (simple-statistics, average ranks for ties). */
export function spearman(x: readonly number[], y: readonly number[]): number | null {
  if (x.length < 3) return null;
  const r = sampleRankCorrelation([...x], [...y]);
  return Number.isFinite(r) ? r : null;
}

/** Cohen's κ between "score ≥ threshold" (judge says good) and the human label. */
export function kappa(scores: readonly number[], y: readonly (0 | 1)[], threshold: number): number | null {
  const n = scores.length;
  if (n === 0) return null;
  let agree = 0;
  let judgeGood = 0;
  let humanGood = 0;
  for (let i = 0; i < n; i++) {
    const j = scores[i]! >= threshold ? 1 : 0;
    if (j === y[i]) agree++;
    judgeGood += j;
    humanGood += y[i]!;
  }
  const po = agree / n;
  const pe = (judgeGood / n) * (humanGood / n) + (1 - judgeGood / n) * (1 - humanGood / n);
  return pe === 1 ? null : (po - pe) / (1 - pe);
}

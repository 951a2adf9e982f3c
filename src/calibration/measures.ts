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

/** An AUC with its counts and a confidence interval. */
export interface AucInterval {
  auc: number;
  /** Bounds of the interval at `level`; null when DeLong's variance is zero (perfect separation): no interval can be given. */
  lower: number | null;
  upper: number | null;
  /** Answers labelled good (1) and bad (0). */
  positives: number;
  negatives: number;
  level: number;
}

/** The standard normal quantile (Acklam's rational approximation, |error| < 1.2e-9). */
function normalQuantile(p: number): number {
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const lo = 0.02425;
  if (p < lo) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1);
  }
  if (p > 1 - lo) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1);
}

/**
 * ROC-AUC with DeLong's variance (DeLong, DeLong & Clarke-Pearson 1988: the variance of the placement
 * values of the good and the bad answers) and a confidence interval built on the logit scale, so it
 * stays inside (0, 1). Null with only one class; the interval is null when the variance is zero.
 */
export function aucWithInterval(scores: readonly number[], y: readonly (0 | 1)[], level = 0.95): AucInterval | null {
  const pos: number[] = [];
  const neg: number[] = [];
  scores.forEach((s, i) => (y[i] === 1 ? pos : neg).push(s));
  const m = pos.length;
  const n = neg.length;
  if (m === 0 || n === 0) return null;
  const psi = (x: number, z: number) => (x > z ? 1 : x === z ? 0.5 : 0);
  // Placements: each good answer's share of bad answers scored lower, and each bad answer's share of good answers scored higher.
  const v10 = pos.map((x) => neg.reduce((s, z) => s + psi(x, z), 0) / n);
  const v01 = neg.map((z) => pos.reduce((s, x) => s + psi(x, z), 0) / m);
  const auc = v10.reduce((s, v) => s + v, 0) / m;
  const variance = (v: number[]) => (v.length < 2 ? 0 : v.reduce((s, x) => s + (x - auc) ** 2, 0) / (v.length - 1));
  const se2 = variance(v10) / m + variance(v01) / n;
  if (!(se2 > 0) || auc <= 0 || auc >= 1) return { auc, lower: null, upper: null, positives: m, negatives: n, level };
  const zq = normalQuantile(1 - (1 - level) / 2);
  const logit = Math.log(auc / (1 - auc));
  const half = (zq * Math.sqrt(se2)) / (auc * (1 - auc));
  const inv = (x: number) => 1 / (1 + Math.exp(-x));
  return { auc, lower: inv(logit - half), upper: inv(logit + half), positives: m, negatives: n, level };
}

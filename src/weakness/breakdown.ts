/**
 * Where the service fails (HCAT §6.2, marginal and bivariate analysis): the sampling-weighted mean of
 * a metric per cell (a topic, a question type, a route, a model, or a topic × question type pair) with
 * a 95 % confidence interval, and a **flag** when the cell is worse than the rest of the traffic: a
 * one-sided Welch test of "cell mean < rest mean", Benjamini–Hochberg over every tested cell (so 12 × 11
 * cells do not cry wolf), a minimum count, and the cell's interval lying below the rest's mean.
 * @module
 */
import { errorFunction } from 'simple-statistics';

/** One scored answer for the breakdown. */
export interface Observation {
  value: number;
  weight: number;
  dims: Readonly<Record<string, string>>;
}

/** One cell of the breakdown. */
export interface Cell {
  /** The dimension values of the cell (`{topic: 't3'}`, `{topic, queryType}`). */
  dimensions: Record<string, string>;
  n: number;
  mean: number;
  ciLow: number;
  ciHigh: number;
  /** Mean of every other answer. */
  restMean: number | null;
  /** Benjamini–Hochberg adjusted one-sided p-value (null: not tested — too few answers). */
  q: number | null;
  flagged: boolean;
}

/** Options of {@link breakdown}; all optional. */
export interface BreakdownOptions {
  /** Cells with fewer answers are reported, never flagged. Default 20. */
  minCount?: number;
  /** False discovery rate of the flags. Default 0.05. */
  fdr?: number;
}

/** Weighted moments of one cell (or of all the answers). */
export interface Moments {
  w: number;
  w2: number;
  sum: number;
  sumSq: number;
  n: number;
}

/** An empty {@link Moments}. */
export const emptyMoments = (): Moments => ({ w: 0, w2: 0, sum: 0, sumSq: 0, n: 0 });

/** Adds one weighted value. */
export const add = (m: Moments, weight: number, value: number) => {
  m.w += weight;
  m.w2 += weight * weight;
  m.sum += weight * value;
  m.sumSq += weight * value * value;
  m.n++;
};
const minus = (a: Moments, b: Moments): Moments => ({ w: a.w - b.w, w2: a.w2 - b.w2, sum: a.sum - b.sum, sumSq: a.sumSq - b.sumSq, n: a.n - b.n });

/** Weighted mean and its standard error (Kish effective sample size). */
function stats(m: Moments): { mean: number; se: number } {
  const mean = m.sum / m.w;
  const variance = Math.max(0, m.sumSq / m.w - mean * mean);
  const nEff = (m.w * m.w) / m.w2;
  return { mean, se: nEff > 1 ? Math.sqrt((variance * nEff) / (nEff - 1) / nEff) : Infinity };
}

/** Benjamini–Hochberg adjusted p-values (same order as given). */
export function benjaminiHochberg(p: readonly number[]): number[] {
  const order = p.map((v, i) => [v, i] as const).sort((a, b) => a[0] - b[0]);
  const q = new Array<number>(p.length);
  let running = 1;
  for (let k = order.length - 1; k >= 0; k--) {
    running = Math.min(running, (order[k]![0] * p.length) / (k + 1));
    q[order[k]![1]] = running;
  }
  return q;
}

/** Cells of `observations` grouped by the dimension names `by` (one for marginal, two for bivariate). */
export function breakdown(observations: readonly Observation[], by: readonly string[], options?: BreakdownOptions): Cell[];
/** The same over any items, reading each one's value with `valueOf` (no copies of large windows). */
export function breakdown<T extends Omit<Observation, 'value'>>(observations: readonly T[], by: readonly string[], options: BreakdownOptions, valueOf: (o: T) => number | undefined): Cell[];
export function breakdown<T extends Omit<Observation, 'value'>>(observations: readonly T[], by: readonly string[], options: BreakdownOptions = {}, valueOf: (o: T) => number | undefined = (o) => (o as unknown as Observation).value): Cell[] {
  const minCount = options.minCount ?? 20;
  const fdr = options.fdr ?? 0.05;
  const total = emptyMoments();
  const groups = new Map<string, { dims: Record<string, string>; m: Moments }>();
  for (const o of observations) {
    const value = valueOf(o);
    if (value === undefined || !Number.isFinite(value) || !(o.weight > 0) || by.some((d) => o.dims[d] === undefined)) continue;
    add(total, o.weight, value);
    const key = by.length === 1 ? o.dims[by[0]!]! : by.map((d) => o.dims[d]).join('\u0000');
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { dims: Object.fromEntries(by.map((d) => [d, o.dims[d]!])), m: emptyMoments() }));
    add(g.m, o.weight, value);
  }
  return cellsOf(groups.values(), total, minCount, fdr);
}


/**
 * The cells from their moments and the moments of every answer they partition: intervals, the Welch
 * test against the rest, Benjamini–Hochberg, the flags; flagged first, then by mean. Shared by
 * {@link breakdown} and the live map's columns.
 */
export function cellsOf(groups: Iterable<{ dims: Record<string, string>; m: Moments }>, total: Moments, minCount: number, fdr: number): Cell[] {
  const cells = [...groups].map(({ dims, m }) => {
    const c = stats(m);
    const rest = minus(total, m);
    const r = rest.n > 0 ? stats(rest) : undefined;
    let p: number | undefined;
    if (m.n >= minCount && r && rest.n >= minCount) {
      const se = Math.sqrt(c.se ** 2 + r.se ** 2);
      // One-sided upper tail 1 − Φ(z) through erf (simple-statistics' Φ table stops at z ≈ 3.1).
      p = se === 0 ? (c.mean < r.mean ? 0 : 1) : Math.max(0, 0.5 * (1 - errorFunction((r.mean - c.mean) / se / Math.SQRT2)));
    }
    return { dims, n: m.n, c, r, p };
  });
  const tested = cells.filter((c) => c.p !== undefined);
  const qs = benjaminiHochberg(tested.map((c) => c.p!));
  const qOf = new Map(tested.map((c, i) => [c, qs[i]!]));
  return cells
    .map((x): Cell => {
      const q = qOf.get(x) ?? null;
      const ciLow = x.c.mean - 1.96 * x.c.se;
      const ciHigh = x.c.mean + 1.96 * x.c.se;
      const restMean = x.r?.mean ?? null;
      return { dimensions: x.dims, n: x.n, mean: x.c.mean, ciLow: Math.max(0, ciLow), ciHigh: Math.min(1, ciHigh), restMean, q, flagged: q !== null && q <= fdr && restMean !== null && ciHigh < restMean };
    })
    .sort((a, b) => Number(b.flagged) - Number(a.flagged) || a.mean - b.mean);
}

/**
 * HCAT §3.3 completeness, on the sentence vectors the embedded judge already has (no extra model
 * pass). Only source sentences **relevant to the query** count — a reader does not expect an answer to
 * repeat a whole retrieved chunk: those whose best cosine to a query sentence reaches `relevance` (and
 * always the most query-like one).
 * - `completeness` (§3.3.1): per relevant source sentence, its best cosine to any answer sentence,
 *   averaged (clamped to [0, 1]);
 * - `completeness_distribution` (§3.3.2): 1 − the optimal-transport (Wasserstein-1) cost of moving the
 *   relevant source sentences (uniform mass) onto the answer sentences (uniform mass), cost = 1 − cosine
 *   clamped to [0, 1] — a real transport plan (entropic, Sinkhorn in the log domain), not the paper's
 *   all-pairs average, which it offers only as an approximation.
 * @module
 */
import { cosine } from '../self-distinctness.ts';

/** What {@link completeness} found. */
export interface Completeness {
  completeness: number;
  distribution: number;
  /** Indexes (into the source sentences) of the relevant sentences, least covered first. */
  leastCovered: number[];
  relevant: number;
}

const clamp01 = (v: number) => Math.min(1, Math.max(0, v));

/**
 * Entropic optimal transport between histograms `a` (n) and `b` (k) under `cost` (n × k), by Sinkhorn
 * iterations in the log domain (stable for small `epsilon`). Returns the transport cost Σ γ·C of the
 * plan found — within a few hundredths of the exact optimum at epsilon = 0.005 on costs in [0, 1]
 * (tests/judges/embedded/completeness.test.ts, against brute force).
 */
export function sinkhornCost(cost: readonly number[][], a: readonly number[], b: readonly number[], epsilon = 0.005, iterations = 500): number {
  const n = a.length;
  const k = b.length;
  const f = new Float64Array(n);
  const g = new Float64Array(k);
  const la = a.map(Math.log);
  const lb = b.map(Math.log);
  const lse = (vals: Float64Array) => {
    let m = -Infinity;
    for (const v of vals) m = Math.max(m, v);
    let s = 0;
    for (const v of vals) s += Math.exp(v - m);
    return m + Math.log(s);
  };
  const row = new Float64Array(k);
  const col = new Float64Array(n);
  for (let it = 0; it < iterations; it++) {
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < k; j++) row[j] = (g[j]! - cost[i]![j]!) / epsilon;
      f[i] = epsilon * (la[i]! - lse(row));
    }
    let change = 0;
    for (let j = 0; j < k; j++) {
      for (let i = 0; i < n; i++) col[i] = (f[i]! - cost[i]![j]!) / epsilon;
      const next = epsilon * (lb[j]! - lse(col));
      change = Math.max(change, Math.abs(next - g[j]!));
      g[j] = next;
    }
    if (change < 1e-9) break;
  }
  let total = 0;
  for (let i = 0; i < n; i++) for (let j = 0; j < k; j++) total += Math.exp((f[i]! + g[j]! - cost[i]![j]!) / epsilon) * cost[i]![j]!;
  return total;
}

/**
 * Completeness of `answer` (sentence vectors) against the `source` sentences relevant to `query`;
 * undefined when a side has no sentence (the caller counts the skip).
 */
export function completeness(query: readonly number[][], source: readonly number[][], answer: readonly number[][], relevance: number): Completeness | undefined {
  if (query.length === 0 || source.length === 0 || answer.length === 0) return undefined;
  const toQuery = source.map((s) => Math.max(...query.map((q) => cosine(s, q))));
  const best = toQuery.indexOf(Math.max(...toQuery));
  const relevant = source.map((_, i) => i).filter((i) => i === best || toQuery[i]! >= relevance);
  const sims = relevant.map((i) => answer.map((a) => clamp01(cosine(source[i]!, a))));
  const covered = sims.map((row) => Math.max(...row));
  const cost = sims.map((row) => row.map((s) => 1 - s));
  const w = sinkhornCost(cost, relevant.map(() => 1 / relevant.length), answer.map(() => 1 / answer.length));
  return {
    completeness: covered.reduce((s, v) => s + v, 0) / covered.length,
    distribution: clamp01(1 - w),
    leastCovered: relevant.map((i, r) => ({ i, c: covered[r]! })).sort((x, y) => x.c - y.c).map((x) => x.i),
    relevant: relevant.length,
  };
}

/**
 * Response self-distinctness (THELMA SD): 1 − share of response sentences that have a
 * near-duplicate elsewhere in the response (reference metrics.md §2, the worked example's reading).
 * @module
 */

/** Cosine similarity of two equal-length vectors (0 when either is zero). */
export function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Result of the SD aggregation. */
export interface SelfDistinctness {
  score: number;
  /** Index pairs (i < j) of sentences judged to repeat each other. */
  redundantPairs: Array<[number, number]>;
}

/**
 * Aggregates SD from a symmetric "repeats" relation over n sentences.
 * @param repeats returns true when sentences i and j say the same thing
 */
export function selfDistinctness(n: number, repeats: (i: number, j: number) => boolean): SelfDistinctness {
  const redundant = new Set<number>();
  const redundantPairs: Array<[number, number]> = [];
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      if (repeats(i, j)) {
        redundant.add(i);
        redundant.add(j);
        redundantPairs.push([i, j]);
      }
    }
  }
  return { score: 1 - redundant.size / n, redundantPairs };
}

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

/** SD of a text, or why it has none (`empty_response`, `single_sentence`). */
export type SelfDistinctnessOutcome = ({ ok: true } & SelfDistinctness) | { ok: false; skipped: string };

/**
 * Splits a response into sentences (D_sen), embeds them and aggregates SD with a cosine threshold.
 * @param embed sentence embedder (the bundled model or an endpoint's embeddings API)
 */
export async function scoreSelfDistinctness(
  embed: (texts: string[]) => Promise<number[][]>,
  sentences: readonly string[],
  threshold: number,
): Promise<SelfDistinctnessOutcome> {
  if (sentences.length === 0) return { ok: false, skipped: 'empty_response' };
  if (sentences.length === 1) return { ok: false, skipped: 'single_sentence' };
  const vectors = await embed([...sentences]);
  return { ok: true, ...selfDistinctness(sentences.length, (i, j) => cosine(vectors[i]!, vectors[j]!) >= threshold) };
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

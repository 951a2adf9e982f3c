/**
 * HCAT's embedding relevance proxies (reference metrics.md §6): for each sentence of one text, the
 * best cosine to any sentence of another, averaged. Relevance signals only — embedding similarity
 * does not detect hallucinations (AUC ≈ 0.45 on HaluEval QA).
 * @module
 */
import { cosine } from '../self-distinctness.ts';

/**
 * Mean over `from` vectors of the max cosine to any `to` vector, clamped to [0,1]
 * (a negative cosine means unrelated, i.e. 0). Undefined when either side is empty.
 */
export function meanMaxSimilarity(from: readonly number[][], to: readonly number[][]): number | undefined {
  if (from.length === 0 || to.length === 0) return undefined;
  let sum = 0;
  for (const f of from) {
    let best = -1;
    for (const t of to) best = Math.max(best, cosine(f, t));
    sum += Math.min(1, Math.max(0, best));
  }
  return sum / from.length;
}

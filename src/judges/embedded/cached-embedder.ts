/**
 * Sentence vectors cached by text in front of the bundled model: retrieved chunks repeat across
 * triplets, and the weakness map's topic assignment embeds the very questions the embedded judge has
 * just embedded — one process-wide cache per thread count makes the second look-up free.
 * @module
 */
import { BoundedCache, contentHash } from '../cache.ts';
import type { SentenceEmbedder } from '../types.ts';
import { loadEmbeddingModel } from './model.ts';

/** A {@link SentenceEmbedder} with a bounded LRU of vectors by text. */
export class CachedEmbedder implements SentenceEmbedder {
  readonly #model: SentenceEmbedder;
  readonly #vectors: BoundedCache<number[]>;

  constructor(model: SentenceEmbedder, maxEntries: number) {
    this.#model = model;
    this.#vectors = new BoundedCache(maxEntries);
  }

  /** Embeds texts (one model call for those not cached), reusing cached vectors. */
  async embed(texts: readonly string[]): Promise<number[][]> {
    const keys = texts.map((t) => contentHash(t));
    const found = new Map<string, number[]>();
    // Text → key of the texts not cached yet (a Map also removes repeats).
    const missing = new Map<string, string>();
    texts.forEach((t, i) => {
      const v = this.#vectors.get(keys[i]!);
      if (v) found.set(keys[i]!, v);
      else missing.set(t, keys[i]!);
    });
    if (missing.size > 0) {
      const fresh = await this.#model.embed([...missing.keys()]);
      [...missing.values()].forEach((key, i) => {
        found.set(key, fresh[i]!);
        this.#vectors.set(key, fresh[i]!);
      });
    }
    return keys.map((k) => found.get(k)!);
  }
}

const shared = new Map<number, Promise<CachedEmbedder>>();

/** Sentence vectors cached in the process (10,000 entries), on the model loaded on `threads` threads. */
export function sharedEmbedder(threads: number): Promise<CachedEmbedder> {
  const key = Math.max(0, Math.floor(threads));
  let e = shared.get(key);
  if (!e) {
    e = loadEmbeddingModel(key).then((model) => new CachedEmbedder(model, 10_000));
    shared.set(key, e);
    e.catch(() => shared.delete(key));
  }
  return e;
}

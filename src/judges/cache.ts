/**
 * Bounded LRU caches of the judges: source-fact decompositions by content hash (production RAG
 * retrieves the same chunks again and again) and whole results by (triplet text, judge config).
 * @module
 */
import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/** SHA-256 over the parts (length-prefixed, so ("ab","c") and ("a","bc") differ). */
export function contentHash(...parts: readonly string[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(`${part.length}:`).update(part);
  return hash.digest('hex');
}

/** A bounded cache; capacity 0 disables it. */
export class BoundedCache<V extends object> {
  readonly #lru: LRUCache<string, V> | undefined;

  constructor(maxEntries: number) {
    this.#lru = maxEntries > 0 ? new LRUCache<string, V>({ max: maxEntries }) : undefined;
  }

  get(key: string): V | undefined {
    return this.#lru?.get(key);
  }

  set(key: string, value: V): void {
    this.#lru?.set(key, value);
  }

  get size(): number {
    return this.#lru?.size ?? 0;
  }

  clear(): void {
    this.#lru?.clear();
  }
}

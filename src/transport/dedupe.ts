/**
 * Bounded de-duplication window for redelivered triplets (at-least-once delivery): remembers ids
 * for `windowMs`, at most `maxEntries` (oldest forgotten first).
 * @module
 */

/** Options of {@link DedupeWindow}; all optional. */
export interface DedupeWindowOptions {
  /** How long an id is remembered, milliseconds. Default 600000. 0 disables de-duplication. */
  windowMs?: number;
  /** Most ids remembered. Default 100000. */
  maxEntries?: number;
}

/** Remembers recently finished triplet ids (bounded by time and count). */
export class DedupeWindow {
  readonly #windowMs: number;
  readonly #max: number;
  /** id → expiry (epoch ms); Map keeps insertion order, so the first entry is the oldest. */
  readonly #seen = new Map<string, number>();

  constructor(options: DedupeWindowOptions = {}) {
    this.#windowMs = options.windowMs ?? 600_000;
    this.#max = options.maxEntries ?? 100_000;
  }

  /** Ids currently remembered. */
  get size(): number {
    return this.#seen.size;
  }

  /** True if the id was marked within the window. */
  has(id: string, nowMs: number = Date.now()): boolean {
    const expiry = this.#seen.get(id);
    if (expiry === undefined) return false;
    if (expiry <= nowMs) {
      this.#seen.delete(id);
      return false;
    }
    return true;
  }

  /** Remembers an id as done. */
  mark(id: string, nowMs: number = Date.now()): void {
    if (this.#windowMs <= 0) return;
    this.#seen.delete(id);
    this.#seen.set(id, nowMs + this.#windowMs);
    this.#evict(nowMs);
  }

  #evict(nowMs: number): void {
    for (const [id, expiry] of this.#seen) {
      if (this.#seen.size <= this.#max && expiry > nowMs) break;
      this.#seen.delete(id);
    }
  }
}

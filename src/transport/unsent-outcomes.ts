/**
 * Judgments whose records were never sent: a batch cut short (a heartbeat or commit refused when the
 * group coordinator moved, a rebalance) leaves its judged triplets unpublished and uncommitted, and
 * Kafka delivers them again — most often to the same scorer. Keeping the finished outcome lets that
 * redelivery publish it instead of paying the judge a second time and counting the triplet twice.
 * Bounded by count and age; what is forgotten is judged again if it comes back.
 * @module
 */
import type { Message } from 'kafkajs';

/** Records a judged triplet produces: score records and DLQ entries. */
export type OutcomeRecords = Array<{ topic: 'scores' | 'dlq'; message: Message }>;

/** Options of {@link UnsentOutcomes}; all optional. */
export interface UnsentOutcomesOptions {
  /** How long an outcome is kept, milliseconds. Default 600000. 0 keeps none. */
  windowMs?: number;
  /** Most outcomes kept. Default 5000. */
  maxEntries?: number;
  /** Called once per outcome forgotten unused (over the bound or older than the window). */
  onEvict?: () => void;
}

/** Triplet id → the records its judgment produced, kept until a redelivery takes them. */
export class UnsentOutcomes {
  readonly #windowMs: number;
  readonly #max: number;
  readonly #onEvict: () => void;
  /** Map keeps insertion order: the first entry is the oldest. */
  readonly #kept = new Map<string, { out: OutcomeRecords; expiry: number }>();

  constructor(options: UnsentOutcomesOptions = {}) {
    this.#windowMs = options.windowMs ?? 600_000;
    this.#max = options.maxEntries ?? 5_000;
    this.#onEvict = options.onEvict ?? (() => undefined);
  }

  /** Outcomes kept now. */
  get size(): number {
    return this.#kept.size;
  }

  /** Keeps a judged triplet's records for its redelivery. */
  keep(id: string, out: OutcomeRecords, nowMs: number = Date.now()): void {
    if (this.#windowMs <= 0 || this.#max <= 0) return;
    this.#kept.delete(id);
    this.#kept.set(id, { out, expiry: nowMs + this.#windowMs });
    for (const [key, entry] of this.#kept) {
      if (this.#kept.size <= this.#max && entry.expiry > nowMs) break;
      this.#kept.delete(key);
      this.#onEvict();
    }
  }

  /** Removes and returns the records kept for `id`, if any and not expired. */
  take(id: string, nowMs: number = Date.now()): OutcomeRecords | undefined {
    const entry = this.#kept.get(id);
    if (entry === undefined) return undefined;
    this.#kept.delete(id);
    if (entry.expiry <= nowMs) {
      this.#onEvict();
      return undefined;
    }
    return entry.out;
  }
}

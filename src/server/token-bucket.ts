/**
 * A token bucket for ingest rate limits: O(1), no timers, bounded state.
 * @module
 */

/** Options of {@link TokenBucket}. */
export interface TokenBucketOptions {
  /** Tokens added per second. Required. */
  ratePerSecond: number;
  /** Bucket size as seconds of rate. Default 1. */
  burstSeconds?: number;
  /** Clock in milliseconds; default `performance.now`. */
  nowMs?: () => number;
}

/**
 * Admits work while tokens last. A request larger than the whole bucket is admitted when the
 * bucket is full and leaves it in debt, so one big batch can pass but the next ones wait.
 */
export class TokenBucket {
  readonly #rate: number;
  readonly #capacity: number;
  readonly #now: () => number;
  #tokens: number;
  #lastMs: number;

  constructor(options: TokenBucketOptions) {
    this.#rate = options.ratePerSecond;
    this.#capacity = Math.max(1, options.ratePerSecond * (options.burstSeconds ?? 1));
    this.#now = options.nowMs ?? (() => performance.now());
    this.#tokens = this.#capacity;
    this.#lastMs = this.#now();
  }

  /**
   * Takes `n` tokens. Returns 0 when admitted, else the whole seconds (≥ 1) until it would be,
   * for `Retry-After`.
   */
  take(n = 1): number {
    const now = this.#now();
    this.#tokens = Math.min(this.#capacity, this.#tokens + ((now - this.#lastMs) / 1000) * this.#rate);
    this.#lastMs = now;
    const needed = Math.min(n, this.#capacity);
    if (this.#tokens >= needed) {
      this.#tokens -= n;
      return 0;
    }
    return Math.max(1, Math.ceil((needed - this.#tokens) / this.#rate));
  }
}

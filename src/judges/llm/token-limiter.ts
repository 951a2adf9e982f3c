/**
 * Tokens-per-minute limiter: a token bucket refilled continuously. A request reserves its
 * estimated tokens before it is sent; the estimate is corrected with the real usage afterwards.
 * @module
 */

/** Options of {@link TokenLimiter}; all optional. */
export interface TokenLimiterOptions {
  /** Budget per minute; 0 disables the limiter. Default 0. */
  tokensPerMinute?: number;
  /** Clock (tests). Default `Date.now`. */
  now?: () => number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class TokenLimiter {
  readonly #capacity: number;
  readonly #now: () => number;
  #available: number;
  #updatedAtMs: number;

  constructor(options: TokenLimiterOptions = {}) {
    this.#capacity = options.tokensPerMinute ?? 0;
    this.#now = options.now ?? Date.now;
    this.#available = this.#capacity;
    this.#updatedAtMs = this.#now();
  }

  #refill(): void {
    const now = this.#now();
    this.#available = Math.min(this.#capacity, this.#available + ((now - this.#updatedAtMs) * this.#capacity) / 60_000);
    this.#updatedAtMs = now;
  }

  /** Milliseconds until `tokens` can be spent (0 = now). A request larger than the budget waits for a full bucket. */
  delayFor(tokens: number): number {
    if (this.#capacity === 0) return 0;
    this.#refill();
    const need = Math.min(tokens, this.#capacity);
    return this.#available >= need ? 0 : Math.ceil(((need - this.#available) * 60_000) / this.#capacity);
  }

  /** Waits until `tokens` fit in the budget, then spends them. */
  async reserve(tokens: number, signal?: AbortSignal): Promise<void> {
    if (this.#capacity === 0) return;
    for (let wait = this.delayFor(tokens); wait > 0; wait = this.delayFor(tokens)) {
      signal?.throwIfAborted();
      await sleep(wait);
    }
    this.#available -= tokens;
  }

  /** Corrects a reservation once the real token count is known (may go negative: later calls wait). */
  adjust(reserved: number, actual: number): void {
    if (this.#capacity === 0) return;
    this.#refill();
    this.#available -= actual - reserved;
  }
}

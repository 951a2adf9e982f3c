/**
 * A consecutive-failure circuit breaker: after `failureThreshold` failed requests in a row it opens
 * for `cooldownMs` (callers shed their work to the DLQ / pause), then lets one trial request through.
 * @module
 */

/** Options of {@link CircuitBreaker}; all optional. */
export interface CircuitBreakerOptions {
  /** Consecutive failures that open the breaker. Default 5. */
  failureThreshold?: number;
  /** How long the breaker stays open, in milliseconds. Default 30000. */
  cooldownMs?: number;
  /** Clock (tests). Default `Date.now`. */
  now?: () => number;
}

/** Whether a request may go ahead, or how long until the breaker half-opens. */
export type BreakerDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

export class CircuitBreaker {
  readonly #threshold: number;
  readonly #cooldownMs: number;
  readonly #now: () => number;
  #failures = 0;
  #openedAtMs: number | undefined;
  #trialInFlight = false;

  constructor(options: CircuitBreakerOptions = {}) {
    this.#threshold = options.failureThreshold ?? 5;
    this.#cooldownMs = options.cooldownMs ?? 30_000;
    this.#now = options.now ?? Date.now;
  }

  /** `closed`, `open` or `half_open`. */
  get state(): 'closed' | 'open' | 'half_open' {
    if (this.#openedAtMs === undefined) return 'closed';
    return this.#now() - this.#openedAtMs >= this.#cooldownMs ? 'half_open' : 'open';
  }

  /** Asks to send one request; in half-open state only one trial request goes through. */
  acquire(): BreakerDecision {
    const state = this.state;
    if (state === 'closed') return { allowed: true };
    if (state === 'half_open' && !this.#trialInFlight) {
      this.#trialInFlight = true;
      return { allowed: true };
    }
    const remaining = this.#openedAtMs! + this.#cooldownMs - this.#now();
    return { allowed: false, retryAfterMs: Math.max(remaining, 1000) };
  }

  /** The request succeeded (or failed for a reason that says nothing about the endpoint's health). */
  onSuccess(): void {
    this.#failures = 0;
    this.#openedAtMs = undefined;
    this.#trialInFlight = false;
  }

  /** The request failed after its retries (429/5xx/timeout/network). */
  onFailure(): void {
    this.#failures++;
    if (this.#trialInFlight || this.#failures >= this.#threshold) this.#openedAtMs = this.#now();
    this.#trialInFlight = false;
  }
}

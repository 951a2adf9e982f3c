/**
 * What the local model may take: a bounded queue (answers waiting or being judged), a rate budget
 * (answers per minute, a token bucket) and a longest wait. What is not admitted is shed: the answer
 * keeps every other score and its `claim_support` is skipped with the reason, counted.
 * @module
 */

/** Why an answer was not given to the model. */
export type ShedReason = 'queue_full' | 'rate_budget' | 'waited_too_long';

/** Options of {@link Admission}; all optional. */
export interface AdmissionOptions {
  /** Answers waiting for or in the model at once. Default 16. */
  maxQueue?: number;
  /** Answers judged per minute at most; 0 = no budget. Default 0. */
  answersPerMinute?: number;
  /** An answer that waited this long for its turn is shed instead of judged late. Default 120000. */
  maxWaitMs?: number;
  now?: () => number;
}

/** Admission control in front of the model. Synchronous and O(1). */
export class Admission {
  readonly #maxQueue: number;
  readonly #perMinute: number;
  readonly #maxWaitMs: number;
  readonly #now: () => number;
  #held = 0;
  #tokens: number;
  #refilledAt: number;

  constructor(options: AdmissionOptions = {}) {
    this.#maxQueue = options.maxQueue ?? 16;
    this.#perMinute = options.answersPerMinute ?? 0;
    this.#maxWaitMs = options.maxWaitMs ?? 120_000;
    this.#now = options.now ?? Date.now;
    this.#tokens = this.#perMinute;
    this.#refilledAt = this.#now();
  }

  /** Answers waiting for or in the model now. */
  get depth(): number {
    return this.#held;
  }

  /** Takes a place, or says why not. Every `true` must be followed by one {@link release}. */
  admit(): ShedReason | true {
    if (this.#held >= this.#maxQueue) return 'queue_full';
    if (this.#perMinute > 0) {
      const now = this.#now();
      this.#tokens = Math.min(this.#perMinute, this.#tokens + ((now - this.#refilledAt) / 60_000) * this.#perMinute);
      this.#refilledAt = now;
      if (this.#tokens < 1) return 'rate_budget';
      this.#tokens -= 1;
    }
    this.#held++;
    return true;
  }

  /** True when an answer admitted at `admittedAt` has waited too long to start. */
  expired(admittedAt: number): boolean {
    return this.#now() - admittedAt > this.#maxWaitMs;
  }

  release(): void {
    if (this.#held > 0) this.#held--;
  }
}

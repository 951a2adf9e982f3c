/**
 * Scoring budget, enforced at the scorer: judged triplets per minute (token bucket) and judge
 * tokens per rolling hour. Shed triplets are counted by the caller; nothing here does I/O.
 * @module
 */

/** Options of {@link ScoringBudget}; all optional (unset = unlimited). */
export interface ScoringBudgetOptions {
  /** Most triplets admitted per minute (refilled continuously). */
  maxTripletsPerMinute?: number | undefined;
  /** Most judge tokens (input + output) spent per rolling hour. */
  maxTokensPerHour?: number | undefined;
}

/** Why a triplet was not admitted. */
export type BudgetVerdict = { admitted: true } | { admitted: false; reason: 'budget_triplets' | 'budget_tokens' };

const MINUTE_MS = 60_000;

/** Per-process judge budget: triplets per minute and tokens per rolling hour. */
export class ScoringBudget {
  readonly #perMinute: number | undefined;
  readonly #tokensPerHour: number | undefined;
  #bucket: number;
  #refilledAtMs: number | undefined;
  /** Tokens spent per minute slot over the last hour (60 slots, ring). */
  readonly #tokenSlots = new Float64Array(60);
  readonly #slotMinute = new Float64Array(60).fill(-1);

  constructor(options: ScoringBudgetOptions = {}) {
    this.#perMinute = options.maxTripletsPerMinute;
    this.#tokensPerHour = options.maxTokensPerHour;
    this.#bucket = this.#perMinute ?? 0;
  }

  /** True when neither limit is set. */
  get unlimited(): boolean {
    return this.#perMinute === undefined && this.#tokensPerHour === undefined;
  }

  /** Admits one triplet now (consuming one unit of the per-minute budget) or says why not. */
  tryAdmit(nowMs: number = Date.now()): BudgetVerdict {
    if (this.#tokensPerHour !== undefined && this.tokensInLastHour(nowMs) >= this.#tokensPerHour) return { admitted: false, reason: 'budget_tokens' };
    if (this.#perMinute !== undefined) {
      const last = this.#refilledAtMs ?? nowMs;
      this.#bucket = Math.min(this.#perMinute, this.#bucket + ((nowMs - last) * this.#perMinute) / MINUTE_MS);
      this.#refilledAtMs = nowMs;
      if (this.#bucket < 1) return { admitted: false, reason: 'budget_triplets' };
      this.#bucket -= 1;
    }
    return { admitted: true };
  }

  /** Records judge tokens spent (input + output). */
  recordTokens(tokens: number, nowMs: number = Date.now()): void {
    if (this.#tokensPerHour === undefined || !(tokens > 0)) return;
    const minute = Math.floor(nowMs / MINUTE_MS);
    const slot = minute % 60;
    if (this.#slotMinute[slot] !== minute) {
      this.#slotMinute[slot] = minute;
      this.#tokenSlots[slot] = 0;
    }
    this.#tokenSlots[slot]! += tokens;
  }

  /** Tokens recorded in the 60 minutes up to now. */
  tokensInLastHour(nowMs: number = Date.now()): number {
    const minute = Math.floor(nowMs / MINUTE_MS);
    let total = 0;
    for (let i = 0; i < 60; i++) if (minute - this.#slotMinute[i]! < 60) total += this.#tokenSlots[i]!;
    return total;
  }
}

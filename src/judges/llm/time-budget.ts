/**
 * How long one judge call may take when no fixed `timeoutMs` is configured: long enough for a small
 * model on a CPU (a 1.5B model on 2 cores reads ~50–150 prompt tokens/s and writes ~5–20 tokens/s, and
 * a single-slot server queues concurrent calls), short enough that a hung hosted endpoint is noticed.
 * The budget grows with the call's size at the pace the endpoint has shown: a moving average of the
 * milliseconds per *weighted* token (prompt tokens + {@link OUTPUT_WEIGHT} × output tokens) of
 * completed calls, queueing included. Before any call completed, a CPU server's pace is assumed.
 * @module
 */

/** An output token costs about as much as this many prompt tokens on a CPU (2–6 measured on 2 cores: docs/judges.md). */
export const OUTPUT_WEIGHT = 4;
/**
 * Assumed milliseconds per weighted token before the first completed call: a 1.5B model on 2 cores shared
 * with other work (measured 134–180 ms per prompt token, 440–730 per output token: docs/judges.md). A
 * first budget too short costs more than a long one: llama.cpp's servers finish an answer whose client
 * left, so a retry waits behind it.
 */
const FIRST_MS_PER_TOKEN = 150;
/** Safety factor over the expected duration. */
const SLACK = 3;
/** Weight of the newest observation in the moving average. */
const ALPHA = 0.3;

/** Options of {@link TimeBudget}; all optional. */
export interface TimeBudgetOptions {
  /** The shortest budget, milliseconds. Default 30000. */
  floorMs?: number;
  /**
   * The longest budget, milliseconds. Default 1800000: on 2 shared cores the 1.5B model read ~5 prompt
   * tokens/s and wrote ~1 token/s (docs/judges.md), so one response-match call took ~5 min and four
   * calls queued in a one-slot server ~20.
   */
  ceilingMs?: number;
}

/** A call's budget, and the hook to call when it ends (answered, failed or timed out). */
export interface BudgetSlot {
  budgetMs: number;
  /** Records the end of the call; with `tokens`, an answer whose pace is learned. */
  end(tokens?: { input: number; output: number; durationMs: number }): void;
}

/**
 * Per-call time budgets from the endpoint's observed pace. Calls in flight are assumed to queue (a
 * llama.cpp server with one slot answers one at a time): a call's budget covers the expected work of the
 * calls sent before it and not yet answered, and the pace learned from an answer leaves that queueing out.
 */
export class TimeBudget {
  readonly #floorMs: number;
  readonly #ceilingMs: number;
  #msPerToken: number | undefined;
  #outstanding = 0;

  constructor(options: TimeBudgetOptions = {}) {
    this.#floorMs = options.floorMs ?? 30_000;
    this.#ceilingMs = Math.max(this.#floorMs, options.ceilingMs ?? 1_800_000);
  }

  /** The observed milliseconds per weighted token; undefined before a call completed. */
  get msPerToken(): number | undefined {
    return this.#msPerToken;
  }

  /** Records a completed call's own pace. */
  observe(inputTokens: number, outputTokens: number, durationMs: number): void {
    const weighted = inputTokens + OUTPUT_WEIGHT * outputTokens;
    if (weighted <= 0 || !(durationMs > 0)) return;
    const pace = durationMs / weighted;
    this.#msPerToken = this.#msPerToken === undefined ? pace : ALPHA * pace + (1 - ALPHA) * this.#msPerToken;
  }

  /**
   * Records a call that ran out of its budget: the endpoint is slower than assumed (or queues), so the
   * pace is taken as twice the one assumed — the retry gets a budget twice as long. (A server that keeps
   * computing an abandoned answer is the reason not to retry on a budget just as short.)
   */
  timedOut(): void {
    this.#msPerToken = 2 * (this.#msPerToken ?? FIRST_MS_PER_TOKEN);
  }

  /** The expected duration of a call of about `promptTokens` prompt tokens that may write up to `outputTokens` (about half of them, on average). */
  expectedMs(promptTokens: number, outputTokens: number): number {
    return (promptTokens + (OUTPUT_WEIGHT * outputTokens) / 2) * (this.#msPerToken ?? FIRST_MS_PER_TOKEN);
  }

  /** The budget of a call alone (nothing in flight before it). */
  budgetMs(promptTokens: number, outputTokens: number): number {
    return this.#clamp(SLACK * this.expectedMs(promptTokens, outputTokens));
  }

  /** Starts a call: its budget covers the calls still in flight before it. */
  start(promptTokens: number, outputTokens: number): BudgetSlot {
    const own = this.expectedMs(promptTokens, outputTokens);
    const queued = this.#outstanding;
    this.#outstanding += own;
    let ended = false;
    return {
      budgetMs: this.#clamp(SLACK * (queued + own)),
      end: (tokens) => {
        if (ended) return;
        ended = true;
        this.#outstanding = Math.max(0, this.#outstanding - own);
        // Its own share of the wait: the duration scaled by its part of the work in flight when it was sent.
        if (tokens) this.observe(tokens.input, tokens.output, (tokens.durationMs * own) / (queued + own));
      },
    };
  }

  #clamp(ms: number): number {
    return Math.round(Math.min(this.#ceilingMs, Math.max(this.#floorMs, ms)));
  }
}

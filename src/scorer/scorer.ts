/**
 * The scoring loop: each delivered triplet is judged, turned into a ScoreRecord, recorded into
 * the metrics and handed to the record sinks. A judge failure is counted, never turned into a score.
 * @module
 */
import { RagwatchError } from '../errors.ts';
import type { Evaluations, EvaluatorSet } from '../evaluators/types.ts';
import type { PiiCheck, PiiFinding } from '../judges/pii.ts';
import type { Judge, JudgeResult, JudgeScores } from '../judges/types.ts';
import type { Instruments } from '../telemetry/instruments.ts';
import type { ScoringBudget } from '../sampling/budget.ts';
import type { HandleContext, HandleResult } from '../transport/types.ts';
import type { ScoreFailure } from './record-sinks.ts';
import { scoreRecordOf } from './score-record.ts';
import type { SampledTriplet, ScoreRecord } from '../triplet.ts';

/** Options of {@link Scorer}. */
export interface ScorerOptions {
  judge: Judge;
  /** Adds `pii_free` to every record (`judge.pii`); checked once per triplet, whichever judges score it. */
  pii?: PiiCheck;
  /**
   * A second judge that also scores every triplet once the main judge's outcome is final (scored or
   * failed): the embedded judge next to the LLM judge. Its records go to the same sinks with their own
   * `judge` label; it never changes the triplet's outcome or the accounting identity. Default none.
   */
  companion?: Judge;
  /**
   * The configured evaluators (`evaluators:`): their checks run once per triplet and go into every
   * record (main and companion); an `llm` evaluator the main judge did not score is recorded as skipped.
   */
  evaluators?: EvaluatorSet;
  instruments: Instruments;
  /** Receives every ScoreRecord (examples buffer, scores topic). Must not throw. */
  /** Also receives the scored triplet (its text feeds the examples buffer). */
  onRecord?: (record: ScoreRecord, triplet: SampledTriplet) => void;
  /** Receives every failure (DLQ in Kafka mode). Must not throw. */
  onFailure?: (triplet: SampledTriplet, reason: string, error: Error) => void;
  /**
   * Receives each judge that was to score a triplet and made no record: the main judge's final failure,
   * the companion's failure, and both judges when the budget sheds the triplet (the evaluation export
   * writes these as `error.type`). Not called for a `retry`. Must not throw.
   */
  onUnscored?: (failure: ScoreFailure, triplet: SampledTriplet) => void;
  /** Sheds triplets beyond the judge budget (counted as dropped{stage="scorer",reason="budget_*"}). Default unlimited. */
  budget?: ScoringBudget;
  /** Judge attempts per triplet on retriable failures before it fails for good. Default 3. */
  maxAttempts?: number;
  /** Wait before retrying a retriable failure that gives no `retryAfterMs`, milliseconds. Default 5000. */
  retryBackoffMs?: number;
}

/** Judges one triplet at a time and records the outcome (metrics, sinks, accounting). */
export class Scorer {
  readonly #judge: Judge;
  readonly #companion: Judge | undefined;
  readonly #instruments: Instruments;
  readonly #onRecord: ((r: ScoreRecord, t: SampledTriplet) => void) | undefined;
  readonly #onFailure: ScorerOptions['onFailure'];
  readonly #onUnscored: ScorerOptions['onUnscored'];
  readonly #budget: ScoringBudget | undefined;
  readonly #maxAttempts: number;
  readonly #retryBackoffMs: number;
  readonly #pii: PiiCheck | undefined;
  readonly #evaluators: EvaluatorSet | undefined;

  constructor(options: ScorerOptions) {
    this.#pii = options.pii;
    this.#evaluators = options.evaluators;
    this.#budget = options.budget;
    this.#maxAttempts = options.maxAttempts ?? 3;
    this.#retryBackoffMs = options.retryBackoffMs ?? 5_000;
    this.#judge = options.judge;
    this.#companion = options.companion;
    this.#instruments = options.instruments;
    this.#onRecord = options.onRecord;
    this.#onFailure = options.onFailure;
    this.#onUnscored = options.onUnscored;
  }

  /**
   * Scores one triplet; the transport acknowledges according to the result. Every terminal result
   * (scored, failed, dropped) is counted here and settles `in_flight`; `retry` (a retriable judge
   * failure, attempts left) counts nothing: the triplet stays in flight until redelivered.
   */
  readonly handle = async (triplet: SampledTriplet, context?: HandleContext): Promise<HandleResult> => {
    const judge = this.#judge;
    const attempt = context?.attempt ?? 1;
    if (attempt === 1 && this.#budget && !this.#budget.unlimited) {
      const verdict = this.#budget.tryAdmit();
      if (!verdict.admitted) {
        this.#instruments.dropped.inc({ stage: 'scorer', reason: verdict.reason });
        this.#instruments.inFlight.dec();
        this.#unscored(judge, verdict.reason, triplet);
        if (this.#companion) this.#unscored(this.#companion, verdict.reason, triplet);
        return { status: 'dropped', reason: verdict.reason };
      }
    }
    let settled = true;
    try {
      // The answer's disclosures, not a judge's opinion: one check serves the main and the companion record.
      const pii = this.#pii?.(triplet);
      const checks = this.#evaluators?.check(triplet);
      const result = await this.#timedScore(judge, triplet);
      if (!result.ok) {
        const reason = result.error.code;
        if (result.retriable && attempt < this.#maxAttempts) {
          settled = false;
          const retryAfterMs = result.retryAfterMs !== undefined && result.retryAfterMs >= 0 ? result.retryAfterMs : this.#retryBackoffMs;
          return { status: 'retry', reason, retryAfterMs };
        }
        this.#instruments.failed.inc({ reason });
        this.#onFailure?.(triplet, reason, result.error);
        this.#unscored(judge, reason, triplet);
        const companion = await this.#scoreCompanion(triplet, pii, checks);
        if (companion) this.#countPii(triplet, pii);
        return { status: 'failed', reason, error: result.error, attempts: attempt, ...(companion ? { companion } : {}) };
      }
      this.#budget?.recordTokens(result.usage.inputTokens + result.usage.outputTokens);
      this.#instruments.scored.inc({ judge: judge.kind });
      const record = this.#record(triplet, judge, result, pii, checks && this.#evaluators?.forJudge(checks, judge.kind, result));
      this.#countPii(triplet, pii);
      const companion = await this.#scoreCompanion(triplet, pii, checks);
      return { status: 'scored', record, ...(companion ? { companion } : {}) };
    } catch (err) {
      // Judges return result objects; reaching here is a bug in a judge or a sink. Count, never score.
      const error = err instanceof Error ? err : new Error(String(err));
      this.#instruments.failed.inc({ reason: 'internal_error' });
      this.#onFailure?.(triplet, 'internal_error', error);
      this.#unscored(judge, 'internal_error', triplet);
      return { status: 'failed', reason: 'internal_error', error, attempts: attempt };
    } finally {
      if (settled) this.#instruments.inFlight.dec();
    }
  };

  /** Runs the companion judge once per final outcome; its failure is counted and changes nothing else. */
  async #scoreCompanion(triplet: SampledTriplet, pii: PiiFinding | undefined, checks: Evaluations | undefined): Promise<ScoreRecord | undefined> {
    const judge = this.#companion;
    if (!judge) return undefined;
    const result = await this.#timedScore(judge, triplet).catch((err: unknown) => ({ ok: false as const, error: err }));
    this.#instruments.companion.inc({ judge: judge.kind, outcome: result.ok ? 'scored' : 'failed' });
    if (!result.ok) this.#unscored(judge, result.error instanceof RagwatchError ? result.error.code : 'internal_error', triplet);
    return result.ok ? this.#record(triplet, judge, result, pii, checks) : undefined;
  }

  /** Tells `onUnscored` that `judge` made no record of `triplet`; a throwing listener changes nothing. */
  #unscored(judge: Judge, reason: string, triplet: SampledTriplet): void {
    if (!this.#onUnscored) return;
    try {
      this.#onUnscored({ judge: judge.model ? { kind: judge.kind, model: judge.model } : { kind: judge.kind }, reason, timeMs: Date.now() }, triplet);
    } catch {
      // Sinks must not throw; if one does, scoring goes on.
    }
  }

  /** Counts a scored production answer's disclosures once (`ragwatch_response_pii_total`), however many records it got. */
  #countPii(triplet: SampledTriplet, pii: PiiFinding | undefined): void {
    if (pii?.free !== 0 || triplet.origin === 'probe') return;
    for (const [type, n] of Object.entries(pii.types)) this.#instruments.responsePii.inc({ type }, n);
  }

  /** `judge.score`, timed into `ragwatch_judge_duration_seconds{judge}`. */
  async #timedScore(judge: Judge, triplet: SampledTriplet): Promise<JudgeResult> {
    const started = performance.now();
    const result = await judge.score(triplet);
    this.#instruments.judgeDuration.observe({ judge: judge.kind }, (performance.now() - started) / 1000);
    return result;
  }

  /** Builds the ScoreRecord, records its scores and skips, and hands it to the sink. */
  #record(triplet: SampledTriplet, judge: Judge, result: JudgeScores, pii: PiiFinding | undefined, evaluations: Evaluations | undefined): ScoreRecord {
    const record = scoreRecordOf(triplet, judge, result, pii, evaluations);
    // Probe answers never reach the production score series (the generated rules alert on them).
    if (record.origin !== 'probe') {
      // The score histogram bounds the service label itself (metrics.services / maxServices).
      for (const [metric, value] of Object.entries(record.scores)) {
        this.#instruments.score.observe({ metric, judge: record.judge.kind, service: record.service }, value, record.weight, { trace_id: record.traceId });
      }
      for (const [metric, reason] of Object.entries(record.skipped)) {
        this.#instruments.skipped.inc({ metric, reason });
      }
    }
    this.#onRecord?.(record, triplet);
    return record;
  }
}

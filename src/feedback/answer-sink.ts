/**
 * The scored answers as a sink of the scorer: each production record is kept in the feedback store
 * (ids and scores, for the join by trace or response id), at most `maxAnswersPerSecond` of them a
 * second (an answer whose feedback is already held is always kept); the others are counted in
 * `ragwatch_feedback_answers_skipped_total`. In split mode an answer that already has feedback is shared
 * on the labels topic, so every replica holds the pair, whichever scored the answer.
 * @module
 */
import { Counter, type Registry } from 'prom-client';
import type { RecordSink } from '../scorer/record-sinks.ts';
import type { SampledTriplet, ScoreRecord } from '../triplet.ts';
import type { FeedbackStore } from './feedback-store.ts';
import type { FeedbackAnswer } from './types.ts';

/** The answer of a record, or undefined without its triplet (no span id to join on). */
export function feedbackAnswerOf(record: ScoreRecord, triplet: SampledTriplet | undefined, nowMs: number): FeedbackAnswer | undefined {
  if (!triplet) return undefined;
  const scores = Object.fromEntries(Object.entries(record.scores).filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1])));
  return {
    tripletId: record.tripletId,
    traceId: record.traceId,
    spanId: triplet.spanId,
    service: record.service,
    judge: record.judge.kind,
    scores,
    createdMs: nowMs,
    ...(triplet.responseId !== undefined ? { responseId: triplet.responseId } : {}),
    ...(record.release !== undefined ? { release: record.release } : {}),
    ...(record.judge.model !== undefined ? { model: record.judge.model } : {}),
  };
}

/** Options of {@link FeedbackAnswerSink}. */
export interface FeedbackAnswerSinkOptions {
  store: FeedbackStore;
  /** Shares an answer with feedback (split mode). */
  publish?: (answer: FeedbackAnswer) => void;
  /**
   * Answers written per second at most; beyond, an answer is kept only when its feedback is already
   * held. Default {@link DEFAULT_MAX_ANSWERS_PER_SECOND}.
   */
  maxAnswersPerSecond?: number;
  /** Where `ragwatch_feedback_answers_skipped_total` is registered. */
  registry?: Registry;
  now?: () => number;
}

/**
 * Each kept answer is a row in three indexes keyed by random ids: ≈ 100 µs of the event loop per answer
 * once the table is at its bound (batches of 256 took 13–22 ms, p99 160–270 ms, on the loaded 2-core
 * machine), so at overload rates (1,000 scored answers/s) the writes alone took a tenth of the main
 * thread and stalled /healthz (issue 53). 100 a second keeps a join window of 100,000 answers
 * (`feedback.maxAnswers`) 17 minutes long — where writing every answer at 1,000/s keeps 100 seconds —
 * and a sample of the answers, not all of them, joined to their users' feedback above that rate.
 */
export const DEFAULT_MAX_ANSWERS_PER_SECOND = 100;

export class FeedbackAnswerSink implements RecordSink {
  readonly #o: FeedbackAnswerSinkOptions;
  readonly #max: number;
  readonly #skipped: Counter | undefined;
  /** The second being counted, and the answers kept in it. */
  #second = -1;
  #kept = 0;

  constructor(options: FeedbackAnswerSinkOptions) {
    this.#o = options;
    this.#max = options.maxAnswersPerSecond ?? DEFAULT_MAX_ANSWERS_PER_SECOND;
    if (options.registry) {
      this.#skipped = new Counter({ name: 'ragwatch_feedback_answers_skipped_total', help: `Scored answers not written to the feedback store for the join: beyond ${this.#max} a second (an answer whose feedback is already held is always kept). Feedback on them is still counted in ragwatch_feedback_total.`, registers: [options.registry] });
    }
  }

  /** Never throws: a failed write costs the join of that answer only. */
  onRecord(record: ScoreRecord, triplet?: SampledTriplet): void {
    if (record.origin === 'probe') return;
    const now = (this.#o.now ?? Date.now)();
    const answer = feedbackAnswerOf(record, triplet, now);
    if (!answer) return;
    try {
      const second = Math.floor(now / 1000);
      if (second !== this.#second) {
        this.#second = second;
        this.#kept = 0;
      }
      if (this.#kept >= this.#max && !this.#o.store.hasFeedbackFor(answer.traceId, answer.responseId)) {
        this.#skipped?.inc();
        return;
      }
      this.#kept++;
      this.#o.store.addAnswer(answer);
      if (this.#o.publish && this.#o.store.hasFeedbackFor(answer.traceId, answer.responseId)) this.#o.publish(answer);
    } catch {
      // The store counts its own failures; scoring goes on.
    }
  }
}

/**
 * The scored answers as a sink of the scorer: each production record is kept in the feedback store
 * (ids and scores, for the join by trace or response id). In split mode an answer that already has
 * feedback is shared on the labels topic, so every replica holds the pair, whichever scored the answer.
 * @module
 */
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
  now?: () => number;
}

export class FeedbackAnswerSink implements RecordSink {
  readonly #o: FeedbackAnswerSinkOptions;

  constructor(options: FeedbackAnswerSinkOptions) {
    this.#o = options;
  }

  /** Never throws: a failed write costs the join of that answer only. */
  onRecord(record: ScoreRecord, triplet?: SampledTriplet): void {
    if (record.origin === 'probe') return;
    const answer = feedbackAnswerOf(record, triplet, (this.#o.now ?? Date.now)());
    if (!answer) return;
    try {
      this.#o.store.addAnswer(answer);
      if (this.#o.publish && this.#o.store.hasFeedbackFor(answer.traceId, answer.responseId)) this.#o.publish(answer);
    } catch {
      // The store counts its own failures; scoring goes on.
    }
  }
}

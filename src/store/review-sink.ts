/**
 * The review store as a consumer of score records: every scored production answer is offered for
 * human review (bounded by the store's own limits).
 * @module
 */
import type { RecordSink } from '../scorer/record-sinks.ts';
import type { SampledTriplet, ScoreRecord } from '../triplet.ts';
import { reviewItemOf } from './create.ts';
import type { ReviewStore } from './review-store.ts';

/** Options of {@link ReviewSink}; `store` is required. */
export interface ReviewSinkOptions {
  store: ReviewStore;
  /** Label concept → the metrics whose score bands an answer (`calibration.labelMetrics`). Default {}. */
  labelMetrics?: Readonly<Record<string, readonly string[]>>;
  /** Longest text kept per field (`store.maxTextChars`). Default 4000. */
  maxTextChars?: number;
  /** Whether the calibration cannot decide a score (prediction set {good, bad}). Default: never. */
  undecided?: (metric: string, judge: string, score: number) => boolean;
  /** Answers offered per second at most (`store.maxReviewItemsPerSecond`); the rest are counted and skipped. Default 10. */
  maxItemsPerSecond?: number;
  /** Clock, milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** Adds each record with its triplet to the review store. */
export class ReviewSink implements RecordSink {
  readonly #o: Required<ReviewSinkOptions>;
  #secondMs = 0;
  #inSecond = 0;

  constructor(options: ReviewSinkOptions) {
    this.#o = { labelMetrics: {}, maxTextChars: 4000, undecided: () => false, maxItemsPerSecond: 10, now: Date.now, ...options };
  }

  /** Never throws: a full disk must not stop scoring (the answer is just not offered for review, counted). */
  onRecord(record: ScoreRecord, triplet?: SampledTriplet): void {
    if (!triplet) return;
    const o = this.#o;
    const now = o.now();
    if (now - this.#secondMs >= 1000) {
      this.#secondMs = now;
      this.#inSecond = 0;
    }
    if (this.#inSecond >= o.maxItemsPerSecond) {
      o.store.countSkipped();
      return;
    }
    this.#inSecond++;
    try {
      o.store.addItem(reviewItemOf(record, triplet, { labelMetrics: o.labelMetrics, maxTextChars: o.maxTextChars, undecided: o.undecided, now }));
    } catch {
      o.store.countError('add_item');
    }
  }
}

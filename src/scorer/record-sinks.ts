/**
 * How the scorer's output reaches its consumers: each consumer of score records (metrics, calibration,
 * the weakness map, the review store, the prober, …) is a {@link RecordSink} the role registers.
 * Adding a consumer is its own room and one line in the role that wires it.
 * @module
 */
import type { JudgeKind, SampledTriplet, ScoreRecord } from '../triplet.ts';

/**
 * A judge that was to score a triplet and ended without a record: its final failure (after the
 * retries), the companion judge's failure, or the scoring budget shedding the triplet (both judges).
 */
export interface ScoreFailure {
  /** The judge that did not score. */
  judge: { kind: JudgeKind; model?: string };
  /**
   * Why, a stable low-cardinality code: the judge error's code (`RAGWATCH_JUDGE_MALFORMED`,
   * `RAGWATCH_JUDGE_UNAVAILABLE` …), `internal_error`, or the budget's `budget_triplets` / `budget_tokens`
   * — the `reason` of `ragwatch_triplets_failed_total` / `ragwatch_triplets_dropped_total`.
   */
  reason: string;
  /** When it ended, milliseconds since the epoch. */
  timeMs: number;
}

/** A consumer of score records. */
export interface RecordSink {
  /** Receives one score record and the triplet it judged (when the caller has it). Never throws. */
  onRecord(record: ScoreRecord, triplet?: SampledTriplet): void;
  /** Receives a judge's failure to score a triplet (no record follows from that judge). Never throws. */
  onFailure?(failure: ScoreFailure, triplet: SampledTriplet): void;
}

/** The sinks a role registered, fed in order. */
export class RecordSinks implements RecordSink {
  readonly #sinks: RecordSink[];

  constructor(sinks: readonly RecordSink[] = []) {
    this.#sinks = [...sinks];
  }

  /** Registers one more sink (after those given before). */
  add(sink: RecordSink): void {
    this.#sinks.push(sink);
  }

  /** Feeds the record to every sink. */
  readonly onRecord = (record: ScoreRecord, triplet?: SampledTriplet): void => {
    for (const sink of this.#sinks) sink.onRecord(record, triplet);
  };

  /** Feeds the failure to every sink that reads failures. */
  readonly onFailure = (failure: ScoreFailure, triplet: SampledTriplet): void => {
    for (const sink of this.#sinks) sink.onFailure?.(failure, triplet);
  };
}

/**
 * How the scorer's output reaches its consumers: each consumer of score records (metrics, calibration,
 * the weakness map, the review store, the prober, …) is a {@link RecordSink} the role registers.
 * Adding a consumer is its own room and one line in the role that wires it.
 * @module
 */
import type { SampledTriplet, ScoreRecord } from '../triplet.ts';

/** A consumer of score records. */
export interface RecordSink {
  /** Receives one score record and the triplet it judged (when the caller has it). Never throws. */
  onRecord(record: ScoreRecord, triplet?: SampledTriplet): void;
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
}

/**
 * The evaluation export as a sink of the scorer: each production score record becomes its
 * evaluation results (selected, labelled, explanations redacted), and each judge's failure to score
 * an answer one `error.type` result per metric it was to score; both are handed to every configured
 * writer's queue. Nothing here waits or throws: a dead receiver only fills (and overflows, counted)
 * its writer's bounded queue.
 * @module
 */
import type { RecordSink, ScoreFailure } from '../scorer/record-sinks.ts';
import type { JudgeKind, SampledTriplet, ScoreRecord } from '../triplet.ts';
import { evaluationResultsOf, failureResultsOf, type ResultOptions } from './evaluation-results.ts';
import type { EvaluationResult, EvaluationWriter } from './types.ts';

/** Options of {@link EvaluationExportSink}. */
export interface EvaluationExportSinkOptions extends ResultOptions {
  writers: readonly EvaluationWriter[];
  /** Export the records of ragwatch's own probes too. Default false. */
  includeProbes?: boolean;
  /** The metrics a judge of this kind scores (a failed judge gets one `error.type` result for each). Default: none (failures are not exported). */
  metricsOf?: (judge: JudgeKind) => readonly string[];
  /** ragwatch's page of a trace's answer (`evaluationExport.answerUrlTemplate`); each result carries it. Default: none. */
  answerUrlOf?: (traceId: string) => string;
}

export class EvaluationExportSink implements RecordSink {
  readonly #o: EvaluationExportSinkOptions;
  #shutdown: Promise<void> | undefined;

  constructor(options: EvaluationExportSinkOptions) {
    this.#o = options;
  }

  /** The writers (names: `otlp`, `phoenix`, `langfuse`). */
  get writers(): readonly EvaluationWriter[] {
    return this.#o.writers;
  }

  onRecord(record: ScoreRecord, triplet?: SampledTriplet): void {
    if (record.origin === 'probe' && !this.#o.includeProbes) return;
    let results;
    try {
      results = evaluationResultsOf(record, triplet, this.#o);
    } catch {
      return;
    }
    if (results.length === 0) return;
    this.#link(results);
    for (const w of this.#o.writers) w.write(results);
  }

  /** A judge that failed to score the answer: one result per metric it was to score, with `error.type`. */
  onFailure(failure: ScoreFailure, triplet: SampledTriplet): void {
    if (triplet.origin === 'probe' && !this.#o.includeProbes) return;
    let results;
    try {
      results = failureResultsOf(failure, triplet, this.#o.metricsOf?.(failure.judge.kind) ?? []);
    } catch {
      return;
    }
    if (results.length === 0) return;
    this.#link(results);
    for (const w of this.#o.writers) w.write(results);
  }

  /** Adds the answer page's URL to each result, when one is configured. */
  #link(results: EvaluationResult[]): void {
    const of = this.#o.answerUrlOf;
    if (!of) return;
    for (const r of results) r.answerUrl = of(r.traceId);
  }

  /** Sends everything queued. */
  async forceFlush(): Promise<void> {
    await Promise.all(this.#o.writers.map((w) => w.forceFlush()));
  }

  /** Flushes within each writer's grace, counts the rest as dropped. Idempotent. */
  shutdown(): Promise<void> {
    return (this.#shutdown ??= Promise.all(this.#o.writers.map((w) => w.shutdown())).then(() => undefined));
  }
}

/**
 * Evaluation export contracts (DESIGN §22): each scored metric of an answer becomes one
 * {@link EvaluationResult}, written onto the trace people already debug in — as an OpenTelemetry
 * `gen_ai.evaluation.result` log record parented to the evaluated generation span (OTLP), a Phoenix
 * span annotation or a Langfuse score. Every writer queues (bounded, drops counted) and sends off the
 * scoring path; a dead receiver costs scoring nothing.
 * @module
 */

/** One evaluation of one metric of one scored answer, ready to leave the process (text already redacted). */
export interface EvaluationResult {
  /** The scored triplet. */
  tripletId: string;
  /** The evaluated generation span's trace (32 hex digits). */
  traceId: string;
  /** The evaluated generation span (16 hex digits). */
  spanId: string;
  /** The provider's response id (`gen_ai.response.id`), when capture saw one. */
  responseId?: string;
  /** `gen_ai.evaluation.name`: the metric. */
  name: string;
  /** `gen_ai.evaluation.score.value`, in [0,1]; absent when the evaluation failed (`errorType`). */
  scoreValue?: number;
  /** `gen_ai.evaluation.score.label`: low cardinality (`pass` / `fail`, or an evaluator's own). */
  scoreLabel?: string;
  /** `gen_ai.evaluation.explanation`: the unsupported claims or the reason, redacted and truncated. */
  explanation?: string;
  /** `error.type`: why the metric has no score (the scorer's skip reason, e.g. `no_claims`). */
  errorType?: string;
  /** The judge that scored it. */
  judge: { kind: string; model?: string };
  /** The evaluated service and release. */
  service: string;
  release?: string;
  /** When the answer was scored, milliseconds since the epoch. */
  timeMs: number;
  /** ragwatch's page of the answer (`evaluationExport.answerUrlTemplate`), when configured. */
  answerUrl?: string;
}

/** A destination of evaluation results: queues what it is given and sends it in the background. */
export interface EvaluationWriter {
  /** `otlp`, `phoenix` or `langfuse`: the `writer` label of the export counters. */
  readonly name: string;
  /** Queues the results (the newest are dropped and counted when the queue is full). O(1) per result, never throws, never waits. */
  write(results: readonly EvaluationResult[]): void;
  /** Sends everything queued now; resolves when it is sent or given up (counted). */
  forceFlush(): Promise<void>;
  /** Sends what it can within the grace period, drops (counted) the rest, stops. Idempotent. */
  shutdown(): Promise<void>;
}

/** The outcome of one request, classified the way the OTLP specification retries. */
export type SendOutcome =
  | { status: 'success'; /** Records the receiver rejected in a partial success. */ rejected?: number; message?: string }
  | { status: 'retryable'; /** The receiver's Retry-After or RetryInfo, milliseconds. */ retryAfterMs?: number; error: string }
  | { status: 'failure'; error: string };

/** Sends one serialised batch; never rejects (a network error is an outcome). */
export type SendBatch = (signal: AbortSignal) => Promise<SendOutcome>;

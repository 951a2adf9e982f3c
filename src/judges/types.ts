/**
 * Judge stage contract: scores one sampled triplet. Result objects, never exceptions, at this
 * boundary; a judge that cannot score says why and never fabricates a number.
 * @module
 */
import type { RagwatchError } from '../errors.ts';
import type { JudgeKind, MetricScores, MetricSkips, SampledTriplet, ScoreDetails, Usage } from '../triplet.ts';

/** Scores and explanations of one triplet. */
export interface JudgeScores {
  scores: MetricScores;
  /** Metrics that have no score, with the reason (e.g. `no_claims`). */
  skipped: MetricSkips;
  details: ScoreDetails;
  usage: Usage;
}

/** A failed scoring attempt; `retriable` failures may succeed later (the Kafka scorer pauses for `retryAfterMs`). */
export interface JudgeFailure {
  ok: false;
  error: RagwatchError;
  retriable: boolean;
  /** How long to wait before trying again (429/503 Retry-After, or until the circuit breaker half-opens). */
  retryAfterMs?: number;
}

export type JudgeResult = ({ ok: true } & JudgeScores) | JudgeFailure;

/** Turns sentences into embedding vectors (the bundled model or an endpoint's embeddings API). */
export interface SentenceEmbedder {
  embed(texts: string[]): Promise<number[][]>;
}

export interface Judge {
  readonly kind: JudgeKind;
  /** Model name reported in ScoreRecords, when meaningful. */
  readonly model?: string;
  /** True once `init()` has completed (model loaded / endpoint configured). */
  readonly ready: boolean;
  /** Loads models or checks configuration. Safe to call more than once. */
  init(): Promise<void>;
  score(triplet: SampledTriplet, options?: { signal?: AbortSignal }): Promise<JudgeResult>;
  /** Idempotent. */
  shutdown(): Promise<void>;
}

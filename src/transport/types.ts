/**
 * Transport stage contracts: the producer side hands sampled triplets over without ever
 * blocking capture; the consumer side feeds them to the scorer and acknowledges by result.
 * @module
 */
import type { SampledTriplet, ScoreRecord } from '../triplet.ts';

/**
 * What the scorer did with one triplet; the consumer commits/acknowledges accordingly.
 * `retry` means "not done, try again after `retryAfterMs`" (judge back-pressure): the consumer
 * pauses delivery and redelivers the same triplet with `attempt + 1`. `companion` is the record of
 * the companion judge (`judge.embedded.alongside`), published next to the outcome.
 */
export type HandleResult =
  | { status: 'scored'; record?: ScoreRecord; companion?: ScoreRecord }
  | { status: 'failed'; reason: string; error?: Error; attempts?: number; companion?: ScoreRecord }
  | { status: 'dropped'; reason: string }
  | { status: 'retry'; reason: string; retryAfterMs: number };

/** Delivery context of one triplet. */
export interface HandleContext {
  /** 1 for the first delivery, incremented on every `retry`. */
  attempt: number;
  /** Where a Kafka consumer read it (the answer page's trail); absent from the memory queue. */
  source?: { topic: string; partition: number; offset: string };
}

/** The function a consumer feeds triplets to. */
export type TripletHandler = (triplet: SampledTriplet, context?: HandleContext) => Promise<HandleResult>;

/** Sends sampled triplets towards the scorer. */
export interface TripletProducer {
  /** Enqueues without blocking; false when the triplet was dropped (the drop is counted). */
  send(triplet: SampledTriplet): boolean;
  /** Resolves when everything enqueued so far is delivered (or dropped). */
  forceFlush(): Promise<void>;
  /** Stops accepting, flushes within the caller's deadline. Idempotent. */
  shutdown(): Promise<void>;
}

/** Delivers sampled triplets to a handler. */
export interface TripletConsumer {
  /** Starts delivering; the handler is never called concurrently more than the consumer's concurrency. */
  start(handler: TripletHandler): Promise<void>;
  /** True while delivering (for `/readyz`). */
  readonly running: boolean;
  /** Resolves when everything received so far has been handled. */
  forceFlush(): Promise<void>;
  /** Stops delivering, waits for in-flight handlers. Idempotent. */
  shutdown(): Promise<void>;
}

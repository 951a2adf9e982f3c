/**
 * Transport stage contracts: the producer side hands sampled triplets over without ever
 * blocking capture; the consumer side feeds them to the scorer.
 * @module
 */
import type { SampledTriplet } from '../triplet.ts';

/** What the scorer did with one triplet; the consumer commits/acknowledges accordingly. */
export type HandleResult = { status: 'scored' } | { status: 'failed'; reason: string } | { status: 'dropped'; reason: string };

/** Sends sampled triplets towards the scorer. */
export interface TripletProducer {
  /** Enqueues without blocking; false when the bounded buffer is full (the drop is counted). */
  send(triplet: SampledTriplet): boolean;
  forceFlush(): Promise<void>;
  /** Idempotent. */
  shutdown(): Promise<void>;
}

/** Delivers sampled triplets to a handler. */
export interface TripletConsumer {
  /** Starts delivering; the handler is never called concurrently more than the consumer's concurrency. */
  start(handler: (triplet: SampledTriplet) => Promise<HandleResult>): Promise<void>;
  /** Resolves when everything received so far has been handled. */
  forceFlush(): Promise<void>;
  /** Stops delivering, waits for in-flight handlers. Idempotent. */
  shutdown(): Promise<void>;
}

/**
 * Split assembly contracts (DESIGN §16): collectors forward span records to the spans topic, an
 * assembling consumer group builds triplets from them.
 * @module
 */
import type { CapturedLog, CapturedSpan, SpanSource } from '../capture/types.ts';

/** Where decoded span records go (capture's own assembler): feeds spans and answers whether a trace is still buffered. */
export interface AssemblySink {
  addSpans(spans: readonly CapturedSpan[], source: SpanSource): void;
  addLogs(logs: readonly CapturedLog[], source: SpanSource): void;
  /** True while spans of `traceId` wait to be assembled. */
  isBuffered(traceId: string): boolean;
  /** Lets buffered traces go unassembled (they are read again); returns the spans and logs let go. */
  release(traceIds: Iterable<string>): number;
}

/** Where a collector's decoded spans go: local capture, or the spans topic (split assembly). */
export interface SpanIngest {
  addSpans(spans: readonly CapturedSpan[], source: SpanSource): void;
  addLogs(logs: readonly CapturedLog[], source: SpanSource): void;
}

/**
 * Bounded per-trace buffer. Spans of one trace arrive out of order and across batches; a trace
 * is assembled once it has been idle for `traceIdleMs` (or is older than `traceMaxAgeMs`).
 * @module
 */
import type { CapturedSpan } from './types.ts';

/** Resolved assembler bounds (all required). */
export interface AssemblerOptions {
  maxTraces: number;
  maxSpansPerTrace: number;
  traceIdleMs: number;
  traceMaxAgeMs: number;
}

/** Why the assembler dropped a span. */
export type AssemblerDropReason = 'max_traces' | 'max_spans_per_trace';

interface Pending {
  spans: CapturedSpan[];
  firstMs: number;
  lastMs: number;
}

export class TraceAssembler {
  readonly #options: AssemblerOptions;
  readonly #traces = new Map<string, Pending>();
  readonly #onTrace: (spans: CapturedSpan[]) => void;
  readonly #onDrop: (reason: AssemblerDropReason) => void;

  /**
   * @param onTrace receives each assembled trace's spans (must not throw)
   * @param onDrop counts dropped spans
   */
  constructor(options: AssemblerOptions, onTrace: (spans: CapturedSpan[]) => void, onDrop: (reason: AssemblerDropReason) => void) {
    this.#options = options;
    this.#onTrace = onTrace;
    this.#onDrop = onDrop;
  }

  /** Traces currently buffered. */
  get size(): number {
    return this.#traces.size;
  }

  /** Buffers a span; returns false when it was dropped (bounds reached). */
  add(span: CapturedSpan, nowMs: number = Date.now()): boolean {
    let pending = this.#traces.get(span.traceId);
    if (!pending) {
      if (this.#traces.size >= this.#options.maxTraces) {
        this.#onDrop('max_traces');
        return false;
      }
      pending = { spans: [], firstMs: nowMs, lastMs: nowMs };
      this.#traces.set(span.traceId, pending);
    }
    if (pending.spans.length >= this.#options.maxSpansPerTrace) {
      this.#onDrop('max_spans_per_trace');
      return false;
    }
    pending.spans.push(span);
    pending.lastMs = nowMs;
    return true;
  }

  /** Assembles every trace that is idle or too old at `nowMs`. */
  sweep(nowMs: number = Date.now()): void {
    const { traceIdleMs, traceMaxAgeMs } = this.#options;
    for (const [traceId, pending] of this.#traces) {
      if (nowMs - pending.lastMs >= traceIdleMs || nowMs - pending.firstMs >= traceMaxAgeMs) {
        this.#traces.delete(traceId);
        this.#onTrace(pending.spans);
      }
    }
  }

  /** Assembles every buffered trace now (forceFlush / shutdown). */
  flushAll(): void {
    const all = [...this.#traces.values()];
    this.#traces.clear();
    for (const pending of all) this.#onTrace(pending.spans);
  }
}

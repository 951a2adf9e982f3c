/**
 * Bounded per-trace buffer. Spans of one trace arrive out of order and across batches; a trace
 * is assembled once it has been idle for `traceIdleMs` (or is older than `traceMaxAgeMs`).
 * @module
 */
import type { CapturedLog, CapturedSpan } from './types.ts';

/** Resolved assembler bounds (all required). */
export interface AssemblerOptions {
  maxTraces: number;
  maxSpansPerTrace: number;
  traceIdleMs: number;
  traceMaxAgeMs: number;
}

/** Why the assembler dropped a span. */
export type AssemblerDropReason = 'max_traces' | 'max_spans_per_trace' | 'log_without_trace';

interface Pending {
  spans: CapturedSpan[];
  logs: CapturedLog[];
  firstMs: number;
  lastMs: number;
}

export class TraceAssembler {
  readonly #options: AssemblerOptions;
  readonly #traces = new Map<string, Pending>();
  readonly #onTrace: (spans: CapturedSpan[], logs: CapturedLog[]) => void;
  readonly #onDrop: (reason: AssemblerDropReason) => void;

  /**
   * @param onTrace receives each assembled trace's spans (must not throw)
   * @param onDrop counts dropped spans
   */
  constructor(options: AssemblerOptions, onTrace: (spans: CapturedSpan[], logs: CapturedLog[]) => void, onDrop: (reason: AssemblerDropReason) => void) {
    this.#options = options;
    this.#onTrace = onTrace;
    this.#onDrop = onDrop;
  }

  /** Traces currently buffered. */
  get size(): number {
    return this.#traces.size;
  }

  #pending(traceId: string, nowMs: number): Pending | undefined {
    let pending = this.#traces.get(traceId);
    if (!pending) {
      if (this.#traces.size >= this.#options.maxTraces) {
        this.#onDrop('max_traces');
        return undefined;
      }
      pending = { spans: [], logs: [], firstMs: nowMs, lastMs: nowMs };
      this.#traces.set(traceId, pending);
    }
    return pending;
  }

  /** Buffers a span; returns false when it was dropped (bounds reached). */
  add(span: CapturedSpan, nowMs: number = Date.now()): boolean {
    const pending = this.#pending(span.traceId, nowMs);
    if (!pending) return false;
    if (pending.spans.length >= this.#options.maxSpansPerTrace) {
      this.#onDrop('max_spans_per_trace');
      return false;
    }
    pending.spans.push(span);
    pending.lastMs = nowMs;
    return true;
  }

  /** Buffers a log record with its trace (shares the per-trace span bound); false when dropped. */
  addLog(log: CapturedLog, nowMs: number = Date.now()): boolean {
    if (!log.traceId) {
      this.#onDrop('log_without_trace');
      return false;
    }
    const pending = this.#pending(log.traceId, nowMs);
    if (!pending) return false;
    if (pending.spans.length + pending.logs.length >= this.#options.maxSpansPerTrace) {
      this.#onDrop('max_spans_per_trace');
      return false;
    }
    pending.logs.push(log);
    pending.lastMs = nowMs;
    return true;
  }

  /** Assembles every trace that is idle or too old at `nowMs`. */
  sweep(nowMs: number = Date.now()): void {
    const { traceIdleMs, traceMaxAgeMs } = this.#options;
    for (const [traceId, pending] of this.#traces) {
      if (nowMs - pending.lastMs >= traceIdleMs || nowMs - pending.firstMs >= traceMaxAgeMs) {
        this.#traces.delete(traceId);
        this.#onTrace(pending.spans, pending.logs);
      }
    }
  }

  /** Assembles every buffered trace now (forceFlush / shutdown). */
  flushAll(): void {
    const all = [...this.#traces.values()];
    this.#traces.clear();
    for (const pending of all) this.#onTrace(pending.spans, pending.logs);
  }
}

/**
 * Bounded per-request buffer. Spans of one trace arrive out of order and across batches, children
 * may end after their parents, and one request may be split over several traces. Spans (and GenAI
 * content log records) are grouped by trace id; traces are merged into one group when a span
 * carries a configured join attribute (a request id the app propagates) or links to another
 * trace. A group is assembled once it has been idle for `traceIdleMs` (or is older than
 * `traceMaxAgeMs`). A span that arrives after its trace was assembled (a child that outlived its
 * parent by more than the idle time) is assembled again together with the trace's earlier spans,
 * kept for `traceMaxAgeMs`; only its own generations produce outcomes then. Every bound drops the
 * newest item, counted.
 * @module
 */
import { str } from './attributes.ts';
import { RecentTraces } from './recent-traces.ts';
import type { CapturedLog, CapturedSpan } from './types.ts';

/** Resolved assembler bounds (all required except the join options). */
export interface AssemblerOptions {
  maxTraces: number;
  maxSpansPerTrace: number;
  /** Spans + log records held across all groups and the recent-trace context; default unlimited. */
  maxBufferedSpans?: number;
  traceIdleMs: number;
  traceMaxAgeMs: number;
  /** Span attributes whose value joins traces into one request. Default none. */
  joinAttributes?: readonly string[];
  /** Join a trace with the traces its spans link to. Default false. */
  joinLinks?: boolean;
}

/** Why the assembler dropped a span or log record. */
export type AssemblerDropReason = 'max_traces' | 'max_spans_per_trace' | 'max_buffered_spans' | 'log_without_trace' | 'duplicate_span';

interface Pending {
  spans: CapturedSpan[];
  logs: CapturedLog[];
  firstMs: number;
  lastMs: number;
  /** Trace ids routed to this group (their aliases are removed when it is assembled). */
  traceIds: Set<string>;
  /** Spans from an earlier assembly of the same trace: context for late spans, no outcomes of their own (created when needed). */
  context: Set<string> | undefined;
  /** Spans and logs carried over from the earlier assembly (not counted against the bound again). */
  seeded: number;
}

/** Receives an assembled group; spans whose ids are in `contextOnly` were already assembled before. */
export type TraceHandler = (spans: CapturedSpan[], logs: CapturedLog[], contextOnly: ReadonlySet<string>) => void;

const NO_CONTEXT: ReadonlySet<string> = new Set();

export class TraceAssembler {
  readonly #options: AssemblerOptions;
  readonly #groups = new Map<string, Pending>();
  /** trace id → group key, for traces that joined another group. */
  readonly #alias = new Map<string, string>();
  /** trace id → its last assembled group (bounded by maxTraces, kept traceMaxAgeMs). */
  readonly #recent = new RecentTraces();
  /** Spans + logs held in #groups (including context seeded from #recent). */
  #bufferedItems = 0;
  readonly #onTrace: TraceHandler;
  readonly #onDrop: (reason: AssemblerDropReason) => void;
  readonly #onLate: (() => void) | undefined;

  /**
   * @param onTrace receives each assembled request's spans and logs (must not throw)
   * @param onDrop counts dropped items
   * @param onLate counts spans of a trace that was already assembled (must not throw)
   */
  constructor(options: AssemblerOptions, onTrace: TraceHandler, onDrop: (reason: AssemblerDropReason) => void, onLate?: () => void) {
    this.#options = options;
    this.#onTrace = onTrace;
    this.#onDrop = onDrop;
    this.#onLate = onLate;
  }

  /** True while spans of `traceId` wait in a group to be assembled. */
  isBuffered(traceId: string): boolean {
    return this.#groups.has(this.#keyOf(traceId));
  }

  /** Spans and log records waiting in groups (not counting the recent-trace context, which is shed first). */
  get bufferedItems(): number {
    return this.#bufferedItems;
  }

  /** Requests (groups of traces) currently buffered. */
  get size(): number {
    return this.#groups.size;
  }

  #keyOf(traceId: string): string {
    return this.#alias.get(traceId) ?? traceId;
  }

  #pending(traceId: string, nowMs: number): [string, Pending] | undefined {
    const key = this.#keyOf(traceId);
    let pending = this.#groups.get(key);
    if (!pending) {
      if (this.#groups.size >= this.#options.maxTraces) {
        this.#onDrop('max_traces');
        return undefined;
      }
      pending = { spans: [], logs: [], firstMs: nowMs, lastMs: nowMs, traceIds: new Set<string>().add(traceId), context: undefined, seeded: 0 };
      const recent = this.#recent.get(traceId);
      if (recent) this.#onLate?.();
      // A trace reassembled over and over stops carrying context at twice the per-trace bound.
      if (recent && recent.expiresMs > nowMs && recent.spans.length + recent.logs.length < 2 * this.#options.maxSpansPerTrace) {
        this.#recent.delete(traceId);
        this.#bufferedItems += recent.spans.length + recent.logs.length;
        pending.spans.push(...recent.spans);
        pending.logs.push(...recent.logs);
        const context = (pending.context = new Set());
        for (const s of recent.spans) context.add(s.spanId);
        pending.seeded = recent.spans.length + recent.logs.length;
      }
      this.#groups.set(key, pending);
    }
    return [key, pending];
  }

  /** Moves group `from` into group `into` (creating `into` under that key when absent); returns the surviving key. */
  #merge(fromKey: string, from: Pending, intoKey: string): string {
    if (fromKey === intoKey) return intoKey;
    const into = this.#groups.get(intoKey);
    this.#groups.delete(fromKey);
    if (!into) {
      this.#groups.set(intoKey, from);
      for (const t of from.traceIds) this.#alias.set(t, intoKey);
      return intoKey;
    }
    into.spans.push(...from.spans);
    into.logs.push(...from.logs);
    if (from.context) {
      const context = (into.context ??= new Set());
      for (const id of from.context) context.add(id);
    }
    into.seeded += from.seeded;
    into.firstMs = Math.min(into.firstMs, from.firstMs);
    into.lastMs = Math.max(into.lastMs, from.lastMs);
    for (const t of from.traceIds) {
      into.traceIds.add(t);
      this.#alias.set(t, intoKey);
    }
    return intoKey;
  }

  #join(span: CapturedSpan, key: string, pending: Pending): void {
    for (const attr of this.#options.joinAttributes ?? []) {
      const value = str(span.attributes, attr);
      if (value !== undefined && value !== '') {
        key = this.#merge(key, pending, `join:${attr}=${value}`);
        pending = this.#groups.get(key)!;
        break;
      }
    }
    if (!this.#options.joinLinks || !span.links) return;
    for (const link of span.links) {
      if (link.traceId === span.traceId) continue;
      const linkedKey = this.#keyOf(link.traceId);
      const linked = this.#groups.get(linkedKey);
      if (linked) {
        if (linkedKey !== key) this.#merge(linkedKey, linked, key);
      } else if (!this.#alias.has(link.traceId)) {
        // Spans of the linked trace that arrive later go straight into this group.
        this.#alias.set(link.traceId, key);
        pending.traceIds.add(link.traceId);
      }
    }
  }

  /** Buffers a span; returns false when it was dropped (bounds reached). */
  add(span: CapturedSpan, nowMs: number = Date.now()): boolean {
    if (this.#overBudget()) return false;
    const found = this.#pending(span.traceId, nowMs);
    if (!found) return false;
    const [key, pending] = found;
    // The same span delivered again (an exporter's retry, a Kafka record read twice): two copies of a
    // generation span hide each other and the trace would give no triplet at all.
    if (pending.spans.some((s) => s.spanId === span.spanId)) {
      this.#onDrop('duplicate_span');
      return false;
    }
    if (pending.spans.length + pending.logs.length - pending.seeded >= this.#options.maxSpansPerTrace) {
      this.#onDrop('max_spans_per_trace');
      return false;
    }
    pending.spans.push(span);
    this.#bufferedItems++;
    pending.lastMs = nowMs;
    this.#join(span, key, pending);
    return true;
  }

  /** Buffers a log record with its trace (shares the per-trace bound); false when dropped. */
  addLog(log: CapturedLog, nowMs: number = Date.now()): boolean {
    if (!log.traceId) {
      this.#onDrop('log_without_trace');
      return false;
    }
    if (this.#overBudget()) return false;
    const found = this.#pending(log.traceId, nowMs);
    if (!found) return false;
    const [, pending] = found;
    if (pending.spans.length + pending.logs.length - pending.seeded >= this.#options.maxSpansPerTrace) {
      this.#onDrop('max_spans_per_trace');
      return false;
    }
    pending.logs.push(log);
    this.#bufferedItems++;
    pending.lastMs = nowMs;
    return true;
  }

  /** True (and counted) when the global span budget is used up: recent context is shed first. */
  #overBudget(): boolean {
    const max = this.#options.maxBufferedSpans;
    if (max === undefined) return false;
    while (this.#bufferedItems + this.#recent.items >= max) if (!this.#recent.evictOldest()) break;
    if (this.#bufferedItems < max) return false;
    this.#onDrop('max_buffered_spans');
    return true;
  }

  /** Removes a group from the buffer with its aliases; returns the spans and logs it held. */
  #take(key: string, pending: Pending): number {
    this.#groups.delete(key);
    const items = pending.spans.length + pending.logs.length;
    this.#bufferedItems -= items;
    for (const t of pending.traceIds) if (this.#alias.get(t) === key) this.#alias.delete(t);
    return items;
  }

  #emit(key: string, pending: Pending, nowMs: number): void {
    this.#take(key, pending);
    this.#recent.keep(pending.traceIds, { spans: pending.spans, logs: pending.logs, expiresMs: nowMs + this.#options.traceMaxAgeMs }, this.#options.maxTraces);
    this.#onTrace(pending.spans, pending.logs, pending.context ?? NO_CONTEXT);
  }

  /** Assembles every group that is idle or too old at `nowMs`. */
  sweep(nowMs: number = Date.now()): void {
    const { traceIdleMs, traceMaxAgeMs } = this.#options;
    this.#recent.expire(nowMs);
    for (const [key, pending] of [...this.#groups]) {
      if (nowMs - pending.lastMs >= traceIdleMs || nowMs - pending.firstMs >= traceMaxAgeMs) this.#emit(key, pending, nowMs);
    }
  }

  /** Assembles every buffered group now (forceFlush / shutdown). */
  flushAll(nowMs: number = Date.now()): void {
    for (const [key, pending] of [...this.#groups]) this.#emit(key, pending, nowMs);
  }

  /**
   * Lets the groups of `traceIds` go unassembled, because their records will be read again (a
   * consumer-group rebalance re-reads from the committed offset). Context carried over from an
   * earlier assembly goes back to the recent traces, so a re-read late span finds it again.
   * Returns how many spans and logs were let go (context not included).
   */
  release(traceIds: Iterable<string>, nowMs: number = Date.now()): number {
    let released = 0;
    for (const traceId of traceIds) {
      const key = this.#keyOf(traceId);
      const pending = this.#groups.get(key);
      if (!pending) continue;
      released += this.#take(key, pending) - pending.seeded;
      const context = pending.context;
      if (context) this.#recent.keep(pending.traceIds, { spans: pending.spans.filter((sp) => context.has(sp.spanId)), logs: pending.logs.filter((l) => l.spanId !== undefined && context.has(l.spanId)), expiresMs: nowMs + this.#options.traceMaxAgeMs }, this.#options.maxTraces);
    }
    return released;
  }

  /** Forgets assembled traces kept for late spans (shutdown). */
  clearRecent(): void {
    this.#recent.clear();
  }
}

/**
 * The trail's ring: the decisions of the last `maxTraces` traces, evicted oldest first (by when the
 * trace first reached it), each trace's events bounded. Every recording is a Map lookup and an array
 * push: O(1), synchronous, no I/O, and it never throws (a broken event is dropped, counted).
 * @module
 */
import type { SpansReceived, TraceTrail, TrailEvent, TrailRecorder, TrailStats, TrailView } from './types.ts';

/** Options of {@link TraceRing}; all optional. */
export interface TraceRingOptions {
  /** Traces held at most; the oldest is evicted (counted). 0 turns the trail off. Default 5000 (`trail.maxTraces`). */
  maxTraces?: number;
  /** Events kept per trace; further ones are counted and not kept. Default 24. */
  maxEventsPerTrace?: number;
  /** Response ids kept per trace. Default 4. */
  maxResponseIdsPerTrace?: number;
  /** Clock, milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** Distinct detail lines kept for sharing ({@link TraceRing}): a few hundred KB at most. */
const MAX_INTERNED = 4_096;

interface Entry {
  traceId: string;
  firstMs: number;
  lastMs: number;
  spans: SpansReceived | undefined;
  events: TrailEvent[];
  eventsDropped: number;
  responseIds: string[];
}

const copy = (e: Entry): TraceTrail => ({
  traceId: e.traceId,
  firstMs: e.firstMs,
  lastMs: e.lastMs,
  ...(e.spans ? { spans: { ...e.spans, bySource: { ...e.spans.bySource } } } : {}),
  events: e.events.map((x) => ({ ...x })),
  eventsDropped: e.eventsDropped,
  responseIds: [...e.responseIds],
});

/** The bounded ring of per-trace decisions: a {@link TrailRecorder} for the stages and a {@link TrailView} for the pages. */
export class TraceRing implements TrailRecorder, TrailView {
  readonly #max: number;
  readonly #maxEvents: number;
  readonly #maxResponseIds: number;
  readonly #now: () => number;
  readonly #byTrace = new Map<string, Entry>();
  readonly #byResponse = new Map<string, string>();
  /** Slots in first-seen order: `#slots[#next]` is the oldest once the ring is full. */
  readonly #slots: Array<Entry | undefined>;
  #next = 0;
  #evicted = 0;
  #eventsDropped = 0;
  /**
   * Detail lines seen lately, each kept once: most repeat from trace to trace (the same rule, queue,
   * writer), so the ring holds one copy instead of one per event. Bounded: cleared when full.
   */
  #details = new Map<string, string>();

  constructor(options: TraceRingOptions = {}) {
    this.#max = Math.max(0, Math.floor(options.maxTraces ?? 5_000));
    this.#maxEvents = Math.max(1, options.maxEventsPerTrace ?? 24);
    this.#maxResponseIds = Math.max(1, options.maxResponseIdsPerTrace ?? 4);
    this.#now = options.now ?? Date.now;
    this.#slots = new Array<Entry | undefined>(this.#max);
  }

  spans(traceId: string, count: number, source: string, nowMs?: number): void {
    const e = this.#entry(traceId, nowMs);
    if (!e) return;
    const s = (e.spans ??= { count: 0, firstMs: e.lastMs, lastMs: e.lastMs, bySource: {} });
    s.count += count;
    s.lastMs = e.lastMs;
    s.bySource[source] = (s.bySource[source] ?? 0) + count;
  }

  record(traceId: string, event: Omit<TrailEvent, 'timeMs' | 'count'> & { timeMs?: number }, coalesce = false): void {
    const e = this.#entry(traceId, event.timeMs);
    if (!e) return;
    const last = e.events[e.events.length - 1];
    if (coalesce && last && last.stage === event.stage && last.outcome === event.outcome && last.reason === event.reason) {
      last.count = (last.count ?? 1) + 1;
      return;
    }
    if (e.events.length >= this.#maxEvents) {
      e.eventsDropped++;
      this.#eventsDropped++;
      return;
    }
    const kept: TrailEvent = { stage: event.stage, outcome: event.outcome, timeMs: event.timeMs ?? e.lastMs };
    if (event.reason !== undefined) kept.reason = event.reason;
    if (event.detail !== undefined) kept.detail = this.#intern(event.detail);
    if (event.tripletId !== undefined) kept.tripletId = event.tripletId;
    e.events.push(kept);
  }

  #intern(detail: string): string {
    const held = this.#details.get(detail);
    if (held !== undefined) return held;
    if (this.#details.size >= MAX_INTERNED) this.#details = new Map();
    this.#details.set(detail, detail);
    return detail;
  }

  responseId(traceId: string, responseId: string): void {
    const e = this.#entry(traceId);
    if (!e || e.responseIds.includes(responseId) || e.responseIds.length >= this.#maxResponseIds) return;
    e.responseIds.push(responseId);
    this.#byResponse.set(responseId, traceId);
  }

  get(traceId: string): TraceTrail | undefined {
    const e = this.#byTrace.get(traceId);
    return e ? copy(e) : undefined;
  }

  traceOfResponse(responseId: string): string | undefined {
    return this.#byResponse.get(responseId);
  }

  recent(limit: number): TraceTrail[] {
    const out: TraceTrail[] = [];
    for (let i = 1; i <= this.#max && out.length < limit; i++) {
      const e = this.#slots[(this.#next - i + this.#max) % this.#max];
      if (!e) break;
      out.push(copy(e));
    }
    return out;
  }

  stats(): TrailStats {
    const oldest = this.#byTrace.size === 0 ? undefined : this.#byTrace.size < this.#max ? this.#slots[0] : this.#slots[this.#next];
    return { traces: this.#byTrace.size, capacity: this.#max, oldestMs: oldest?.firstMs, evicted: this.#evicted, eventsDropped: this.#eventsDropped };
  }

  /** The entry of `traceId`, made (evicting the oldest) when new; undefined when the trail is off. */
  #entry(traceId: string, nowMs?: number): Entry | undefined {
    if (this.#max === 0 || typeof traceId !== 'string') return undefined;
    const now = nowMs ?? this.#now();
    let e = this.#byTrace.get(traceId);
    if (e) {
      if (now > e.lastMs) e.lastMs = now;
      return e;
    }
    const old = this.#slots[this.#next];
    if (old) {
      this.#byTrace.delete(old.traceId);
      for (const r of old.responseIds) if (this.#byResponse.get(r) === old.traceId) this.#byResponse.delete(r);
      this.#evicted++;
    }
    e = { traceId, firstMs: now, lastMs: now, spans: undefined, events: [], eventsDropped: 0, responseIds: [] };
    this.#slots[this.#next] = e;
    this.#next = (this.#next + 1) % this.#max;
    this.#byTrace.set(traceId, e);
    return e;
  }
}


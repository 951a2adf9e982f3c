/**
 * Assembled traces kept for late spans (a child that outlived its parent by more than the idle
 * time): per trace id, the spans and logs of its last assembly until `expiresMs`, bounded by a trace
 * count, evicted oldest first. Part of the trace assembler (`assembler.ts`).
 * @module
 */
import type { CapturedLog, CapturedSpan } from './types.ts';

/** An assembled group kept so that late spans of its traces can still join it. */
export interface RecentTrace {
  spans: CapturedSpan[];
  logs: CapturedLog[];
  expiresMs: number;
}

interface Entry extends RecentTrace {
  /** Identifies this entry in the eviction order. */
  seq: number;
}

const itemsOf = (t: RecentTrace) => t.spans.length + t.logs.length;

/** Recent traces by trace id, with an O(1) amortised oldest-first eviction. */
export class RecentTraces {
  readonly #byTrace = new Map<string, Entry>();
  /**
   * Entries in insertion order, oldest from #head; an entry is stale once #byTrace no longer maps its
   * trace id to its seq. Finding the oldest entry by iterating the Map would step over every entry
   * deleted since the Map last compacted itself, on every eviction.
   */
  #order: Array<[traceId: string, seq: number]> = [];
  #head = 0;
  #seq = 0;
  #items = 0;

  /** Trace ids kept. */
  get size(): number {
    return this.#byTrace.size;
  }

  /** Spans + logs kept (an entry shared by several trace ids counts once per id: an upper bound). */
  get items(): number {
    return this.#items;
  }

  /** The last assembly of `traceId`, if kept. */
  get(traceId: string): RecentTrace | undefined {
    return this.#byTrace.get(traceId);
  }

  /** Forgets `traceId` (its spans went back into a buffered group). */
  delete(traceId: string): void {
    const old = this.#byTrace.get(traceId);
    if (!old) return;
    this.#byTrace.delete(traceId);
    this.#items -= itemsOf(old);
  }

  /** Keeps `recent` as the context of each of `traceIds`, replacing older entries, then evicts beyond `maxTraces`. */
  keep(traceIds: ReadonlySet<string>, recent: RecentTrace, maxTraces: number): void {
    const items = itemsOf(recent);
    for (const t of traceIds) {
      this.delete(t);
      const seq = ++this.#seq;
      this.#byTrace.set(t, { ...recent, seq });
      this.#order.push([t, seq]);
      this.#items += items;
    }
    while (this.#byTrace.size > maxTraces) this.evictOldest();
  }

  /** Evicts the oldest entry; false when none is left. */
  evictOldest(): boolean {
    const oldest = this.#oldest();
    if (oldest) this.#deleteOldest(oldest);
    return oldest !== undefined;
  }

  /** Evicts every entry expired at `nowMs` (they are oldest first). */
  expire(nowMs: number): void {
    for (let oldest = this.#oldest(); oldest && oldest[1].expiresMs <= nowMs; oldest = this.#oldest()) this.#deleteOldest(oldest);
  }

  /** Forgets everything (shutdown). */
  clear(): void {
    this.#byTrace.clear();
    this.#order = [];
    this.#head = 0;
    this.#items = 0;
  }

  /** The oldest live entry (stale order entries are dropped on the way). */
  #oldest(): [string, Entry] | undefined {
    const order = this.#order;
    while (this.#head < order.length) {
      const [traceId, seq] = order[this.#head]!;
      const entry = this.#byTrace.get(traceId);
      if (entry?.seq === seq) return [traceId, entry];
      this.#head++;
    }
    return undefined;
  }

  #deleteOldest([traceId, entry]: [string, Entry]): void {
    this.#byTrace.delete(traceId);
    this.#items -= itemsOf(entry);
    this.#head++;
    // Drop the consumed prefix once it is half the array (amortised O(1) per entry).
    if (this.#head > 1024 && this.#head * 2 > this.#order.length) {
      this.#order = this.#order.slice(this.#head);
      this.#head = 0;
    }
  }
}

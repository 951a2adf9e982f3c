/**
 * Conversations as a consumer of score records (DESIGN §18): per service, the share of the
 * conversations seen in `metrics.windowMs` with at least one answer below its metric's threshold —
 * `ragwatch_conversations_flagged_ratio` — and how many there were. One chat that goes wrong in its
 * fourth turn is one bad conversation, whatever its other turns scored. Only conversations with an
 * exported id count (anonymous turns cannot be grouped). Bounded: an LRU of conversation ids
 * (`MAX_CONVERSATIONS`), evictions counted.
 * @module
 */
import { LRUCache } from 'lru-cache';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { RecordSink } from '../scorer/record-sinks.ts';
import type { ScoreRecord } from '../triplet.ts';

/** Conversations remembered at most. */
const MAX_CONVERSATIONS = 50_000;

/** Options of {@link ConversationMonitor}; `registry` and `thresholds` are required. */
export interface ConversationMonitorOptions {
  registry: Registry;
  /** Metric → threshold: an answer is flagged when one of its scores is below its metric's. */
  thresholds: Readonly<Record<string, number>>;
  /** Window of the ratio, milliseconds (`metrics.windowMs`). Default 1800000. */
  windowMs?: number;
  /** The bounded `service` label of a record (`metrics.maxServices`). Default: the record's service. */
  serviceOf?: (record: ScoreRecord) => string;
  now?: () => number;
}

interface Seen {
  service: string;
  flagged: boolean;
  lastMs: number;
}

/** The per-conversation series. */
export class ConversationMonitor implements RecordSink {
  readonly #o: ConversationMonitorOptions;
  readonly #now: () => number;
  readonly #evicted: Counter;
  readonly #seen: LRUCache<string, Seen>;

  constructor(options: ConversationMonitorOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    const registers = [options.registry];
    this.#evicted = new Counter({ name: 'ragwatch_conversations_evicted_total', help: `Conversations forgotten before their window was over because ${MAX_CONVERSATIONS} were held.`, registers });
    const windowMs = options.windowMs ?? 1_800_000;
    this.#seen = new LRUCache<string, Seen>({
      max: MAX_CONVERSATIONS,
      dispose: (value, _key, reason) => {
        if (reason === 'evict' && this.#now() - value.lastMs < windowMs) this.#evicted.inc();
      },
    });
    // Both gauges read the same tally in one scrape: computed once per scrape instant, not per gauge.
    let cached: { atMs: number; per: Map<string, { n: number; flagged: number }> } | undefined;
    const tally = () => {
      const now = this.#now();
      if (cached && cached.atMs === now) return cached.per;
      const from = now - windowMs;
      const per = new Map<string, { n: number; flagged: number }>();
      for (const s of this.#seen.values()) {
        if (s.lastMs < from) continue;
        const t = per.get(s.service) ?? { n: 0, flagged: 0 };
        t.n++;
        if (s.flagged) t.flagged++;
        per.set(s.service, t);
      }
      cached = { atMs: now, per };
      return per;
    };
    new Gauge({
      name: 'ragwatch_conversations_flagged_ratio',
      help: `Share of the conversations seen in metrics.windowMs (${windowMs} ms) with at least one judged answer below its metric's threshold, by service; absent when no conversation with an id was judged.`,
      labelNames: ['service'],
      registers,
      collect() {
        this.reset();
        for (const [service, t] of tally()) this.set({ service }, t.flagged / t.n);
      },
    });
    new Gauge({
      name: 'ragwatch_conversations',
      help: `Conversations (with an exported id) judged in metrics.windowMs (${windowMs} ms), by service.`,
      labelNames: ['service'],
      registers,
      collect() {
        this.reset();
        for (const [service, t] of tally()) this.set({ service }, t.n);
      },
    });
  }

  /** A scored production answer. Never throws; O(metrics). */
  onRecord(record: ScoreRecord): void {
    const id = record.conversation?.id;
    if (id === undefined) return;
    const service = this.#o.serviceOf?.(record) ?? record.service;
    const key = `${service}\u0000${id}`;
    const flagged = Object.entries(record.scores).some(([metric, v]) => v !== undefined && this.#o.thresholds[metric] !== undefined && v < this.#o.thresholds[metric]);
    const before = this.#seen.get(key);
    this.#seen.set(key, { service, flagged: flagged || (before?.flagged ?? false), lastMs: this.#now() });
  }
}

/**
 * Bounded ring buffer of recent low-scoring ScoreRecords with their (already redacted, truncated)
 * triplet text, behind `/api/examples` and the `/examples` page.
 * @module
 */
import type { SampledTriplet, ScoreRecord } from '../triplet.ts';

/** One stored example. */
export interface Example {
  record: ScoreRecord;
  query: string;
  response: string;
  sources: Array<{ id?: string; content: string }>;
  route?: string;
  model?: string;
}


/** Options of {@link ExamplesBuffer}; all optional. */
export interface ExamplesBufferOptions {
  /** Examples kept; the oldest is overwritten. 0 disables the buffer. Default 200. */
  maxRecords?: number;
  /** Longest text kept per field, characters. Default 4000. */
  maxTextChars?: number;
  /** A record is kept when any of these metrics scored below its threshold. Default {}. */
  thresholds?: Readonly<Record<string, number>>;
}

/** Query of {@link ExamplesBuffer.query}; all optional. */
export interface ExamplesQuery {
  /** Only records with a score for this metric. */
  metric?: string;
  /** With `metric`: only scores strictly below this. */
  below?: number;
  service?: string;
  /** Only these triplets (the weakness page's worst answers of a cell). */
  ids?: readonly string[];
  /** Only answers at or after this time, milliseconds since the epoch (an alert's window). */
  sinceMs?: number;
  /** Only answers before this time, milliseconds since the epoch (a history chart's step or firing). */
  untilMs?: number;
  /** Only the turns of this conversation, in turn order (oldest first). */
  conversation?: string;
  /** Only answers of this release, route or generation model (a slice alert's link). */
  release?: string;
  route?: string;
  model?: string;
  /** Newest first, at most this many. Default 20, capped at the buffer size. */
  limit?: number;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export class ExamplesBuffer {
  readonly #max: number;
  readonly #maxChars: number;
  readonly #thresholds: Readonly<Record<string, number>>;
  readonly #ring: Example[] = [];
  #next = 0;

  constructor(options: ExamplesBufferOptions = {}) {
    this.#max = options.maxRecords ?? 200;
    this.#maxChars = options.maxTextChars ?? 4_000;
    this.#thresholds = options.thresholds ?? {};
  }

  /** True when `record` scored below a threshold on some metric. */
  isLow(record: ScoreRecord): boolean {
    return Object.entries(record.scores).some(([m, v]) => v !== undefined && this.#thresholds[m] !== undefined && v < this.#thresholds[m]);
  }

  /** Keeps the record (and its triplet's text) when it is low-scoring. Returns whether it was kept. */
  add(record: ScoreRecord, triplet?: SampledTriplet): boolean {
    if (this.#max === 0 || !this.isLow(record)) return false;
    const max = this.#maxChars;
    const example: Example = {
      record,
      query: clip(triplet?.query ?? '', max),
      response: clip(triplet?.response ?? '', max),
      sources: (triplet?.sources ?? []).slice(0, 20).map((s) => (s.id !== undefined ? { id: s.id, content: clip(s.content, max) } : { content: clip(s.content, max) })),
    };
    if (triplet?.route !== undefined) example.route = triplet.route;
    if (triplet?.model !== undefined) example.model = triplet.model;
    if (this.#ring.length < this.#max) this.#ring.push(example);
    else this.#ring[this.#next] = example;
    this.#next = (this.#next + 1) % this.#max;
    return true;
  }

  /** Matching examples, newest first. */
  query(q: ExamplesQuery = {}): Example[] {
    const limit = Math.max(0, Math.min(q.limit ?? 20, this.#max));
    const out: Example[] = [];
    for (let i = 1; i <= this.#ring.length && out.length < limit; i++) {
      const e = this.#ring[(this.#next - i + this.#ring.length * 2) % this.#ring.length]!;
      if (q.service !== undefined && e.record.service !== q.service) continue;
      if (q.ids !== undefined && !q.ids.includes(e.record.tripletId)) continue;
      if (q.sinceMs !== undefined && !(Date.parse(e.record.timestamp) >= q.sinceMs)) continue;
      if (q.untilMs !== undefined && !(Date.parse(e.record.timestamp) < q.untilMs)) continue;
      if (q.conversation !== undefined && e.record.conversation?.id !== q.conversation) continue;
      if (q.release !== undefined && e.record.release !== q.release) continue;
      if (q.route !== undefined && (e.record.route ?? e.route) !== q.route) continue;
      if (q.model !== undefined && (e.record.model ?? e.model) !== q.model) continue;
      if (q.metric !== undefined) {
        const v = e.record.scores[q.metric as keyof ScoreRecord['scores']];
        if (v === undefined || (q.below !== undefined && !(v < q.below))) continue;
      }
      out.push(e);
    }
    // A conversation reads in its order: turn 1 first.
    if (q.conversation !== undefined) out.sort((a, b) => (a.record.conversation?.turn ?? 0) - (b.record.conversation?.turn ?? 0));
    return out;
  }

  /** Time of the oldest example held, milliseconds since the epoch; undefined when empty. */
  oldestMs(): number | undefined {
    if (this.#ring.length === 0) return undefined;
    const oldest = this.#ring.length < this.#max ? this.#ring[0]! : this.#ring[this.#next]!;
    const ms = Date.parse(oldest.record.timestamp);
    return Number.isFinite(ms) ? ms : undefined;
  }

  /** Examples held. */
  get size(): number {
    return this.#ring.length;
  }
}

/**
 * Judged answers in the embedded store, for the answer page (`/answers/<traceId>`, docs/answers.md):
 * each score record with the redacted text of the answer it judged (question, sources, response, the
 * conversation's earlier turns), found by trace id or the provider's response id. Bounded by
 * `store.maxAnswers` (the oldest go first, counted), text clipped at `store.maxTextChars`; written in
 * batches off the scoring path, like the review store. A RecordSink of the scoring role.
 * @module
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { Counter, type Registry } from 'prom-client';
import type { RecordSink } from '../scorer/record-sinks.ts';
import type { Conversation, Latency, SampledTriplet, ScoreRecord, Source } from '../triplet.ts';

/** One judged answer as the page shows it: the record and what it judged. */
export interface StoredAnswer {
  record: ScoreRecord;
  query: string;
  response: string;
  sources: Source[];
  route?: string;
  model?: string;
  release?: string;
  responseId?: string;
  conversation?: Conversation;
  latency?: Latency;
  sampling?: SampledTriplet['sampling'];
  /** When it was kept, milliseconds since the epoch. */
  createdMs: number;
}

/** Options of {@link AnswerStore}. */
export interface AnswerStoreOptions {
  db: DatabaseSync;
  /** Records kept at most (`store.maxAnswers`). */
  maxAnswers: number;
  /** Longest text kept per field (`store.maxTextChars`). Default 4000. */
  maxTextChars?: number;
  /** Sources kept per answer. Default 20. */
  maxSources?: number;
  /** Answers kept per second at most (`store.maxAnswersPerSecond`); the rest are counted and not kept (their pages show the trail only). Default 50. */
  maxPerSecond?: number;
  registry?: Registry;
  now?: () => number;
}

const MAX_PENDING = 256;
const FLUSH_INTERVAL_MS = 1_000;
/**
 * Rows evicted beyond the excess: about one batch (at most 5 % of the bound), so eviction runs about once
 * per batch near the bound and each DELETE stays small — a larger slack blocked the event loop for
 * 50–200 ms at overload rates in the feedback store (issue 53), whose rows are keyed the same way.
 */
const EVICT_SLACK = MAX_PENDING;

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}…` : text);

export class AnswerStore implements RecordSink {
  readonly #db: DatabaseSync;
  readonly #o: Required<Omit<AnswerStoreOptions, 'registry'>>;
  readonly #st: Record<'insert' | 'count' | 'evict' | 'byTrace' | 'byResponse', StatementSync>;
  readonly #evictions: Counter | undefined;
  readonly #errors: Counter | undefined;
  readonly #skipped: Counter | undefined;
  #secondMs = 0;
  #inSecond = 0;
  /** Rows held, an upper bound (INSERT OR REPLACE of a held row counts too): counted again only past the bound. */
  #rows = 0;
  #pending: Array<{ key: string; traceId: string; responseId: string | null; createdMs: number; body: string }> = [];
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: AnswerStoreOptions) {
    this.#o = { maxTextChars: 4_000, maxSources: 20, maxPerSecond: 50, now: Date.now, ...options };
    this.#db = options.db;
    this.#db.exec(`
      CREATE TABLE IF NOT EXISTS answers (record_key TEXT PRIMARY KEY, trace_id TEXT NOT NULL, response_id TEXT, created_ms INTEGER NOT NULL, body TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS answers_trace ON answers (trace_id);
      CREATE INDEX IF NOT EXISTS answers_response ON answers (response_id);
      CREATE INDEX IF NOT EXISTS answers_created ON answers (created_ms);`);
    const p = (sql: string) => this.#db.prepare(sql);
    this.#st = {
      insert: p('INSERT OR REPLACE INTO answers (record_key, trace_id, response_id, created_ms, body) VALUES (?, ?, ?, ?, ?)'),
      count: p('SELECT COUNT(*) AS n FROM answers'),
      evict: p('DELETE FROM answers WHERE rowid IN (SELECT rowid FROM answers ORDER BY created_ms, rowid LIMIT ?)'),
      byTrace: p('SELECT body FROM answers WHERE trace_id = ? ORDER BY created_ms, rowid LIMIT 50'),
      byResponse: p('SELECT trace_id FROM answers WHERE response_id = ? ORDER BY created_ms DESC LIMIT 1'),
    };
    this.#rows = this.#count();
    if (options.registry) {
      const registers = [options.registry];
      this.#evictions = new Counter({ name: 'ragwatch_store_answers_evicted_total', help: 'Judged answers evicted from the embedded store at store.maxAnswers (the answer page then shows the trail only).', registers });
      this.#errors = new Counter({ name: 'ragwatch_store_answers_errors_total', help: 'Batches of judged answers the embedded store could not write (disk full, I/O error).', registers });
      this.#skipped = new Counter({ name: 'ragwatch_store_answers_skipped_total', help: 'Judged answers not kept for the answer page because store.maxAnswersPerSecond were kept that second (their pages show the trail only).', registers });
    }
  }

  /** Keeps a record and the answer it judged (buffered; written with the next batch). Never throws, never waits. */
  onRecord(record: ScoreRecord, triplet?: SampledTriplet): void {
    if (this.#closed) return;
    const now = this.#o.now();
    if (now - this.#secondMs >= 1_000) {
      this.#secondMs = now;
      this.#inSecond = 0;
    }
    if (this.#inSecond >= this.#o.maxPerSecond) {
      this.#skipped?.inc();
      return;
    }
    this.#inSecond++;
    try {
      const max = this.#o.maxTextChars;
      const answer: StoredAnswer = {
        record,
        query: clip(triplet?.query ?? '', max),
        response: clip(triplet?.response ?? '', max),
        sources: (triplet?.sources ?? []).slice(0, this.#o.maxSources).map((s) => (s.content.length > max ? { ...s, content: clip(s.content, max) } : s)),
        createdMs: now,
        ...(triplet?.route !== undefined ? { route: triplet.route } : {}),
        ...(triplet?.model !== undefined ? { model: triplet.model } : {}),
        ...(triplet?.release !== undefined ? { release: triplet.release } : {}),
        ...(triplet?.responseId !== undefined ? { responseId: triplet.responseId } : {}),
        ...(triplet?.conversation ? { conversation: triplet.conversation } : {}),
        ...(triplet ? { latency: triplet.latency, sampling: triplet.sampling } : {}),
      };
      const key = `${record.tripletId}\u0000${record.judge.kind}`;
      this.#pending.push({ key, traceId: record.traceId, responseId: answer.responseId ?? null, createdMs: answer.createdMs, body: JSON.stringify(answer) });
    } catch {
      this.#errors?.inc();
      return;
    }
    if (this.#pending.length >= MAX_PENDING) this.flush();
    else if (!this.#timer) {
      this.#timer = setTimeout(() => this.flush(), FLUSH_INTERVAL_MS);
      this.#timer.unref();
    }
  }

  /** Writes the buffered answers in one transaction and evicts beyond `maxAnswers`. Never throws. */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.length === 0 || this.#closed) return;
    const batch = this.#pending;
    this.#pending = [];
    try {
      this.#db.exec('BEGIN');
      for (const a of batch) this.#rows += Number(this.#st.insert.run(a.key, a.traceId, a.responseId, a.createdMs, a.body).changes) > 0 ? 1 : 0;
      // A COUNT(*) scans the table: only once the upper bound passes the limit.
      if (this.#rows > this.#o.maxAnswers) {
        this.#rows = this.#count();
        const over = this.#rows - this.#o.maxAnswers;
        if (over > 0) {
          const evicted = Number(this.#st.evict.run(over + Math.min(EVICT_SLACK, Math.floor(this.#o.maxAnswers * 0.05))).changes);
          this.#rows -= evicted;
          this.#evictions?.inc(evicted);
        }
      }
      this.#db.exec('COMMIT');
    } catch {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      this.#errors?.inc();
      this.#rows = this.#count();
    }
  }

  #count(): number {
    return Number((this.#st.count.get() as { n: number }).n);
  }

  /** The judged answers of a trace (one per generation and judge), oldest first. */
  forTrace(traceId: string): StoredAnswer[] {
    if (this.#closed) return [];
    this.flush();
    return (this.#st.byTrace.all(traceId) as Array<{ body: string }>).map((r) => JSON.parse(r.body) as StoredAnswer);
  }

  /** The trace of the latest judged answer with this provider response id. */
  traceOfResponse(responseId: string): string | undefined {
    if (this.#closed) return undefined;
    this.flush();
    return (this.#st.byResponse.get(responseId) as { trace_id: string } | undefined)?.trace_id;
  }

  /** Rows held (written and waiting). */
  get size(): number {
    this.flush();
    return this.#count();
  }

  /** Writes what is buffered and stops (the database is the caller's to close). Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.flush();
    this.#closed = true;
  }
}

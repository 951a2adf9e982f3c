/**
 * Feedback in the embedded store (node:sqlite, the data directory's `ragwatch.sqlite`): the feedback
 * items, and the scored answers they join (ids and each judge's scores, nothing of the text). Both
 * tables are bounded — the oldest rows go first, counted in `ragwatch_feedback_evictions_total` — and
 * every statement binds its values. Scored answers are written in batches off the scoring path.
 * The join: a feedback item names its answer by span id, response id or trace id; a trace with several
 * answers is joined to its latest (the answer the user saw); an answer with several feedback items is
 * labelled by the latest.
 * @module
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { FeedbackAnswer, FeedbackItem, UserLabelledScore } from './types.ts';

/** Options of {@link FeedbackStore}. */
export interface FeedbackStoreOptions {
  db: DatabaseSync;
  maxItems: number;
  maxAnswers: number;
  registry?: Registry;
}

/** Answers buffered before a write is forced. */
const MAX_PENDING = 256;
const FLUSH_INTERVAL_MS = 1_000;
/**
 * Rows evicted beyond the excess (at most 5 % of the bound): one batch, so the eviction runs about once per batch near the bound and
 * each DELETE stays small. (5 % of the bound — 5,000 rows at the default — blocked the event loop for
 * 50–200 ms every few seconds when answers were scored at overload rates: /healthz p99 under the overload
 * bench went from 61–83 ms to 214 ms, issue 53.)
 */
const EVICT_SLACK = MAX_PENDING;

export class FeedbackStore {
  readonly #db: DatabaseSync;
  readonly #o: FeedbackStoreOptions;
  readonly #st: Record<'getItem' | 'upsertItem' | 'countItems' | 'evictItems' | 'byTrace' | 'since' | 'all' | 'upsertAnswer' | 'countAnswers' | 'evictAnswers' | 'answersByTrace' | 'answersByResponse' | 'feedbackFor' | 'joinTrace' | 'joinResponse', StatementSync>;
  readonly #evictions: Counter<'table'> | undefined;
  #answers = 0;
  #items = 0;
  #pending: FeedbackAnswer[] = [];
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: FeedbackStoreOptions) {
    this.#o = options;
    this.#db = options.db;
    this.#db.exec(`
      CREATE TABLE IF NOT EXISTS feedback (id TEXT PRIMARY KEY, trace_id TEXT, response_id TEXT, created_ms INTEGER NOT NULL, body TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS feedback_trace ON feedback (trace_id);
      CREATE INDEX IF NOT EXISTS feedback_response ON feedback (response_id);
      CREATE INDEX IF NOT EXISTS feedback_created ON feedback (created_ms);
      CREATE TABLE IF NOT EXISTS feedback_answers (triplet_id TEXT NOT NULL, judge TEXT NOT NULL, trace_id TEXT NOT NULL, response_id TEXT, created_ms INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (triplet_id, judge));
      CREATE INDEX IF NOT EXISTS feedback_answers_trace ON feedback_answers (trace_id);
      CREATE INDEX IF NOT EXISTS feedback_answers_response ON feedback_answers (response_id);
      CREATE INDEX IF NOT EXISTS feedback_answers_created ON feedback_answers (created_ms);`);
    const p = (sql: string) => this.#db.prepare(sql);
    this.#st = {
      getItem: p('SELECT body FROM feedback WHERE id = ?'),
      upsertItem: p('INSERT INTO feedback (id, trace_id, response_id, created_ms, body) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET trace_id = excluded.trace_id, response_id = excluded.response_id, created_ms = excluded.created_ms, body = excluded.body'),
      countItems: p('SELECT COUNT(*) AS n FROM feedback'),
      evictItems: p('DELETE FROM feedback WHERE rowid IN (SELECT rowid FROM feedback ORDER BY created_ms, rowid LIMIT ?)'),
      byTrace: p('SELECT body FROM feedback WHERE trace_id = ? ORDER BY created_ms DESC LIMIT 20'),
      since: p('SELECT body FROM feedback WHERE created_ms >= ? ORDER BY created_ms, rowid'),
      all: p('SELECT body FROM feedback ORDER BY created_ms, rowid'),
      upsertAnswer: p('INSERT OR REPLACE INTO feedback_answers (triplet_id, judge, trace_id, response_id, created_ms, body) VALUES (?, ?, ?, ?, ?, ?)'),
      countAnswers: p('SELECT COUNT(*) AS n FROM feedback_answers'),
      evictAnswers: p('DELETE FROM feedback_answers WHERE rowid IN (SELECT rowid FROM feedback_answers ORDER BY created_ms, rowid LIMIT ?)'),
      answersByTrace: p('SELECT body FROM feedback_answers WHERE trace_id = ?'),
      answersByResponse: p('SELECT body FROM feedback_answers WHERE response_id = ?'),
      feedbackFor: p('SELECT 1 FROM feedback WHERE trace_id = ? OR (? IS NOT NULL AND response_id = ?) LIMIT 1'),
      joinTrace: p('SELECT f.body AS fb, a.body AS ans FROM feedback f JOIN feedback_answers a ON a.trace_id = f.trace_id'),
      joinResponse: p('SELECT f.body AS fb, a.body AS ans FROM feedback f JOIN feedback_answers a ON a.response_id = f.response_id WHERE f.response_id IS NOT NULL'),
    };
    const count = (st: StatementSync) => Number((st.get() as { n: number }).n);
    this.#answers = count(this.#st.countAnswers);
    this.#items = count(this.#st.countItems);
    if (options.registry) {
      const registers = [options.registry];
      this.#evictions = new Counter({ name: 'ragwatch_feedback_evictions_total', help: 'Rows evicted from the feedback tables of the embedded store at their limits (feedback.maxItems, feedback.maxAnswers), by table.', labelNames: ['table'], registers });
      this.#evictions.inc({ table: 'feedback' }, 0);
      this.#evictions.inc({ table: 'feedback_answers' }, 0);
      const rows = () => ({ feedback: this.#items, feedback_answers: this.#answers + this.#pending.length });
      new Gauge({
        name: 'ragwatch_feedback_store_rows',
        help: 'Rows in the feedback tables of the embedded store, by table (feedback, feedback_answers).',
        labelNames: ['table'],
        registers,
        collect() {
          for (const [table, n] of Object.entries(rows())) this.set({ table }, n);
        },
      });
    }
  }

  /** Stores (or replaces) a feedback item; `new` when its id was not held, `updated` when it changed, `same` otherwise. */
  addFeedback(item: FeedbackItem): 'new' | 'updated' | 'same' {
    if (this.#closed) return 'same';
    const body = JSON.stringify(item);
    const old = this.#st.getItem.get(item.id) as { body: string } | undefined;
    if (old?.body === body) return 'same';
    this.#st.upsertItem.run(item.id, item.traceId ?? null, item.responseId ?? null, item.createdMs, body);
    if (old) return 'updated';
    this.#items++;
    const over = this.#items - this.#o.maxItems;
    if (over > 0) {
      const evicted = Number(this.#st.evictItems.run(over).changes);
      this.#items -= evicted;
      this.#evictions?.inc({ table: 'feedback' }, evicted);
    }
    return 'new';
  }

  /** Keeps a scored answer for the join (buffered: written with the others of the next flush). Never blocks on more than one batch. */
  addAnswer(answer: FeedbackAnswer): void {
    if (this.#closed) return;
    this.#pending.push(answer);
    if (this.#pending.length >= MAX_PENDING) this.flush();
    else if (!this.#timer) {
      this.#timer = setTimeout(() => this.flush(), FLUSH_INTERVAL_MS);
      this.#timer.unref();
    }
  }

  /** Writes the buffered answers in one transaction and evicts beyond `maxAnswers`. Never throws (a failed write loses that batch of join rows only). */
  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.length === 0 || this.#closed) return;
    const batch = this.#pending;
    this.#pending = [];
    try {
      this.#db.exec('BEGIN');
      // An upper bound: INSERT OR REPLACE of a held row counts a change too. The true count is read
      // back only when the bound is passed (a COUNT(*) scans the table: not on every batch).
      for (const a of batch) this.#answers += Number(this.#st.upsertAnswer.run(a.tripletId, a.judge, a.traceId, a.responseId ?? null, a.createdMs, JSON.stringify(a)).changes) > 0 ? 1 : 0;
      if (this.#answers > this.#o.maxAnswers) {
        this.#answers = this.#countAnswers();
        const over = this.#answers - this.#o.maxAnswers;
        if (over > 0) {
          const evicted = Number(this.#st.evictAnswers.run(over + Math.min(EVICT_SLACK, Math.floor(this.#o.maxAnswers * 0.05))).changes);
          this.#answers -= evicted;
          this.#evictions?.inc({ table: 'feedback_answers' }, evicted);
        }
      }
      this.#db.exec('COMMIT');
    } catch {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      this.#answers = this.#countAnswers();
    }
  }

  #countAnswers(): number {
    return Number((this.#st.countAnswers.get() as { n: number }).n);
  }

  /** The feedback on a trace, newest first (at most 20). */
  forTrace(traceId: string): FeedbackItem[] {
    return (this.#st.byTrace.all(traceId) as Array<{ body: string }>).map((r) => JSON.parse(r.body) as FeedbackItem);
  }

  /** Feedback items since `sinceMs` (oldest first), or all of them. */
  items(sinceMs?: number): FeedbackItem[] {
    const rows = (sinceMs === undefined ? this.#st.all.all() : this.#st.since.all(sinceMs)) as Array<{ body: string }>;
    return rows.map((r) => JSON.parse(r.body) as FeedbackItem);
  }

  /** The answers held for a trace or a response id. */
  answersOf(traceId: string | undefined, responseId: string | undefined): FeedbackAnswer[] {
    this.flush();
    const rows = [...(traceId ? this.#st.answersByTrace.all(traceId) : []), ...(responseId ? this.#st.answersByResponse.all(responseId) : [])] as Array<{ body: string }>;
    const seen = new Set<string>();
    return rows.map((r) => JSON.parse(r.body) as FeedbackAnswer).filter((a) => !seen.has(`${a.tripletId}\u0000${a.judge}`) && seen.add(`${a.tripletId}\u0000${a.judge}`));
  }

  /** True when some feedback names this trace or response id. */
  hasFeedbackFor(traceId: string, responseId: string | undefined): boolean {
    return this.#st.feedbackFor.get(traceId, responseId ?? null, responseId ?? null) !== undefined;
  }

  /** Feedback items held. */
  count(): number {
    return this.#items;
  }

  /** The users' labels joined to the judges' scores (see the module note); neutral feedback left out. */
  userPoints(): UserLabelledScore[] {
    this.flush();
    const rows = [...this.#st.joinTrace.all(), ...this.#st.joinResponse.all()] as Array<{ fb: string; ans: string }>;
    // Per feedback item: its answers (the span it names, else the latest answer of its trace or response).
    const byItem = new Map<string, { item: FeedbackItem; answers: FeedbackAnswer[] }>();
    for (const r of rows) {
      const item = JSON.parse(r.fb) as FeedbackItem;
      if (item.polarity === 'neutral') continue;
      const e = byItem.get(item.id) ?? { item, answers: [] };
      e.answers.push(JSON.parse(r.ans) as FeedbackAnswer);
      byItem.set(item.id, e);
    }
    const labelOf = new Map<string, { label: 0 | 1; at: number; answers: FeedbackAnswer[] }>();
    for (const { item, answers } of byItem.values()) {
      const named = item.spanId ? answers.filter((a) => a.spanId === item.spanId) : [];
      const latest = answers.reduce((m, a) => Math.max(m, a.createdMs), -Infinity);
      const chosen = named.length > 0 ? named : answers.filter((a) => a.createdMs === latest);
      const tripletId = chosen[0]!.tripletId;
      const previous = labelOf.get(tripletId);
      if (previous && previous.at > item.createdMs) continue;
      labelOf.set(tripletId, { label: item.polarity === 'positive' ? 1 : 0, at: item.createdMs, answers: chosen.filter((a) => a.tripletId === tripletId) });
    }
    const out: UserLabelledScore[] = [];
    const seen = new Set<string>();
    for (const [tripletId, { label, answers }] of labelOf) {
      for (const a of answers) {
        if (seen.has(`${tripletId}\u0000${a.judge}`)) continue;
        seen.add(`${tripletId}\u0000${a.judge}`);
        for (const [metric, score] of Object.entries(a.scores)) out.push({ metric, judge: a.judge, score, label, tripletId });
      }
    }
    return out;
  }

  /** Writes the buffered answers. */
  async forceFlush(): Promise<void> {
    this.flush();
  }

  /** Writes the buffered answers, then closes the database. Idempotent. */
  async shutdown(): Promise<void> {
    if (this.#closed) return;
    this.flush();
    this.#closed = true;
    this.#db.close();
  }
}

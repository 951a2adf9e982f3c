/**
 * The embedded store of human review (DESIGN §16): the sampled answers awaiting a label (already
 * redacted, clipped) and the labels people gave them, in SQLite. Both tables are bounded — the oldest
 * rows go first, counted in `ragwatch_store_evictions_total` — and every statement binds its values.
 * The review queue is *chosen*: answers the calibration cannot decide ({good, bad}) first, then a
 * round-robin over score bands so labels cover the whole score range (HCAT §5), newest first.
 * @module
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Conversation } from '../triplet.ts';

/** A fitted calibration as the store keeps it: one row per metric and judge, the body as JSON. */
export interface SavedCalibration {
  metric: string;
  judge: string;
}

/** One answer in the review queue. */
export interface ReviewItem {
  tripletId: string;
  /** The answer's trace (absent in items stored before it was kept), linked to `server.traceUrlTemplate`. */
  traceId?: string;
  service: string;
  judge: string;
  /** Score band 0–4 of its first labelled metric (stratification). */
  band: number;
  needsReview: boolean;
  createdMs: number;
  query: string;
  response: string;
  sources: Array<{ id?: string; content: string }>;
  scores: Record<string, number>;
  /** Texts the judge found unsupported (highlighted on the page). */
  unsupported: string[];
  /** A chat turn's conversation (the earlier turns are shown above it). */
  conversation?: Conversation;
}

/** One human label. */
export interface Label {
  tripletId: string;
  /** The label concept (`groundedness`, `answer_relevancy`). */
  metric: string;
  value: 0 | 1;
  reviewer?: string;
  createdMs: number;
}

/** Options of {@link ReviewStore}. */
export interface ReviewStoreOptions {
  db: DatabaseSync;
  maxItems: number;
  maxLabels: number;
  registry?: Registry;
  now?: () => number;
}

/** Answers buffered before a write is forced. */
const MAX_PENDING = 256;
/** Longest an offered answer waits before it is written, milliseconds. */
const FLUSH_INTERVAL_MS = 1000;
/** Share of `maxItems` evicted beyond the excess, so eviction is rare under a steady flow. */
const EVICT_SLACK = 0.05;

/** The review store: answers awaiting a label and the labels given, in SQLite (bounded tables). */
export class ReviewStore {
  readonly #db: DatabaseSync;
  readonly #o: ReviewStoreOptions;
  readonly #now: () => number;
  readonly #evictions: Counter<'table'> | undefined;
  readonly #errors: Counter<'op'> | undefined;
  readonly #skipped: Counter | undefined;
  readonly #st: Record<'insertItem' | 'countItems' | 'evictItems' | 'upsertLabel' | 'countLabels' | 'evictLabels' | 'queue' | 'item' | 'labels' | 'labelsOf' | 'labelled' | 'saveCalibration' | 'calibrations', StatementSync>;
  #closed = false;
  /** Rows of review_items, kept here: `addItem` runs for every scored answer and must not count the table each time. */
  #items = 0;
  /** Answers offered since the last flush: written in one transaction (a statement per answer cost a quarter of the CPU at 10× overload). */
  #pending: ReviewItem[] = [];
  #flushTimer: NodeJS.Timeout | undefined;

  constructor(options: ReviewStoreOptions) {
    this.#o = options;
    this.#db = options.db;
    this.#now = options.now ?? Date.now;
    this.#db.exec(`
      CREATE TABLE IF NOT EXISTS review_items (triplet_id TEXT PRIMARY KEY, created_ms INTEGER NOT NULL, band INTEGER NOT NULL, needs_review INTEGER NOT NULL, body TEXT NOT NULL);
      CREATE INDEX IF NOT EXISTS review_items_created ON review_items (created_ms);
      CREATE TABLE IF NOT EXISTS labels (triplet_id TEXT NOT NULL, metric TEXT NOT NULL, value INTEGER NOT NULL, reviewer TEXT, created_ms INTEGER NOT NULL, PRIMARY KEY (triplet_id, metric));
      CREATE INDEX IF NOT EXISTS labels_created ON labels (created_ms);
      CREATE TABLE IF NOT EXISTS calibrations (metric TEXT NOT NULL, judge TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (metric, judge));
      CREATE TABLE IF NOT EXISTS models (name TEXT PRIMARY KEY, body TEXT NOT NULL);`);
    const p = (sql: string) => this.#db.prepare(sql);
    this.#st = {
      insertItem: p('INSERT OR IGNORE INTO review_items (triplet_id, created_ms, band, needs_review, body) VALUES (?, ?, ?, ?, ?)'),
      countItems: p('SELECT COUNT(*) AS n FROM review_items'),
      // Labelled answers are kept while their labels are (they hold the scores the calibration needs).
      evictItems: p('DELETE FROM review_items WHERE triplet_id IN (SELECT triplet_id FROM review_items i WHERE NOT EXISTS (SELECT 1 FROM labels l WHERE l.triplet_id = i.triplet_id) ORDER BY created_ms LIMIT ?)'),
      upsertLabel: p('INSERT INTO labels (triplet_id, metric, value, reviewer, created_ms) VALUES (?, ?, ?, ?, ?) ON CONFLICT (triplet_id, metric) DO UPDATE SET value = excluded.value, reviewer = excluded.reviewer, created_ms = excluded.created_ms'),
      countLabels: p('SELECT COUNT(*) AS n FROM labels'),
      evictLabels: p('DELETE FROM labels WHERE rowid IN (SELECT rowid FROM labels ORDER BY created_ms, rowid LIMIT ?)'),
      queue: p(`SELECT body FROM (SELECT body, needs_review, band, created_ms, ROW_NUMBER() OVER (PARTITION BY band ORDER BY created_ms DESC) AS rn
        FROM review_items i WHERE NOT EXISTS (SELECT 1 FROM labels l WHERE l.triplet_id = i.triplet_id)) ORDER BY needs_review DESC, rn, band LIMIT ?`),
      item: p('SELECT body FROM review_items WHERE triplet_id = ?'),
      labels: p('SELECT triplet_id, metric, value, reviewer, created_ms FROM labels ORDER BY created_ms, rowid'),
      labelsOf: p('SELECT triplet_id, metric, value, reviewer, created_ms FROM labels WHERE triplet_id = ? ORDER BY created_ms, rowid'),
      labelled: p('SELECT COUNT(DISTINCT triplet_id) AS n FROM labels'),
      saveCalibration: p('INSERT INTO calibrations (metric, judge, body) VALUES (?, ?, ?) ON CONFLICT (metric, judge) DO UPDATE SET body = excluded.body'),
      calibrations: p('SELECT body FROM calibrations ORDER BY metric, judge'),
    };
    this.#items = Number((this.#st.countItems.get() as { n: number }).n);
    if (options.registry) {
      const registers = [options.registry];
      this.#evictions = new Counter({ name: 'ragwatch_store_evictions_total', help: 'Rows evicted from the embedded store at its limits (store.maxReviewItems, store.maxLabels), by table.', labelNames: ['table'], registers });
      this.#evictions.inc({ table: 'review_items' }, 0);
      this.#evictions.inc({ table: 'labels' }, 0);
      this.#skipped = new Counter({ name: 'ragwatch_store_review_skipped_total', help: 'Scored answers not offered for review because store.maxReviewItemsPerSecond were offered that second.', registers });
      this.#errors = new Counter({ name: 'ragwatch_store_errors_total', help: 'Embedded-store writes that failed (disk full, I/O error), by operation; the answer is then not offered for review.', labelNames: ['op'], registers });
      const count = (st: StatementSync) => Number((st.get() as { n: number }).n);
      const st = this.#st;
      const closed = () => this.#closed;
      const flush = () => this.#flush();
      new Gauge({
        name: 'ragwatch_store_rows',
        help: 'Rows in the embedded store, by table (review_items, labels).',
        labelNames: ['table'],
        registers,
        collect() {
          if (closed()) return;
          flush();
          this.set({ table: 'review_items' }, count(st.countItems));
          this.set({ table: 'labels' }, count(st.countLabels));
        },
      });
    }
  }

  /**
   * Keeps an answer for review (ignored when already held). Buffered: written with the others of the
   * next flush (every {@link FLUSH_INTERVAL_MS}, at {@link MAX_PENDING} answers, or before any read).
   * Never blocks on more than one batch.
   */
  addItem(item: ReviewItem): void {
    if (this.#closed) return;
    this.#pending.push(item);
    if (this.#pending.length >= MAX_PENDING) this.#flush();
    else if (!this.#flushTimer) {
      this.#flushTimer = setTimeout(() => this.#flush(), FLUSH_INTERVAL_MS);
      this.#flushTimer.unref();
    }
  }

  /**
   * Writes the buffered answers in one transaction, then evicts the oldest unlabelled beyond the limit
   * — down to {@link EVICT_SLACK} below it, so the eviction query runs once per many answers, not per answer.
   */
  #flush(): void {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    if (this.#pending.length === 0 || this.#closed) return;
    const batch = this.#pending;
    this.#pending = [];
    try {
      this.#db.exec('BEGIN');
      for (const item of batch) this.#items += Number(this.#st.insertItem.run(item.tripletId, item.createdMs, item.band, item.needsReview ? 1 : 0, JSON.stringify(item)).changes);
      const over = this.#items - this.#o.maxItems;
      if (over > 0) {
        const evicted = Number(this.#st.evictItems.run(over + Math.floor(this.#o.maxItems * EVICT_SLACK)).changes);
        this.#items -= evicted;
        this.#evictions?.inc({ table: 'review_items' }, evicted);
      }
      this.#db.exec('COMMIT');
    } catch {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      this.#items = Number((this.#st.countItems.get() as { n: number }).n);
      this.#errors?.inc({ op: 'add_item' }, batch.length);
    }
  }

  /** The answer held under an id. */
  item(tripletId: string): ReviewItem | undefined {
    this.#flush();
    const row = this.#st.item.get(tripletId) as { body: string } | undefined;
    return row ? (JSON.parse(row.body) as ReviewItem) : undefined;
  }

  /**
   * Called after a label given here is stored (the review page, the API, an import), with the answer it
   * labels — not for labels that arrived from other replicas. Split mode publishes them (LabelBus).
   */
  onLocalLabel: ((label: Label, item: ReviewItem) => void) | undefined;

  /** Stores (or replaces) a label; `replicated` marks one that came from another replica. */
  addLabel(label: Omit<Label, 'createdMs'> & { createdMs?: number }, replicated = false): void {
    if (this.#closed) return;
    const createdMs = label.createdMs ?? this.#now();
    this.#st.upsertLabel.run(label.tripletId, label.metric, label.value, label.reviewer ?? null, createdMs);
    if (!replicated && this.onLocalLabel) {
      const item = this.item(label.tripletId);
      if (item) this.onLocalLabel({ ...label, createdMs }, item);
    }
    const over = Number((this.#st.countLabels.get() as { n: number }).n) - this.#o.maxLabels;
    if (over > 0) this.#evictions?.inc({ table: 'labels' }, Number(this.#st.evictLabels.run(over).changes));
  }

  /** The next answers to review: undecidable first, then round-robin over score bands, newest first. */
  queue(limit: number): ReviewItem[] {
    this.#flush();
    return (this.#st.queue.all(limit) as Array<{ body: string }>).map((r) => JSON.parse(r.body) as ReviewItem);
  }

  /** Every label (oldest first), or those of one answer. */
  labels(tripletId?: string): Label[] {
    const rows = (tripletId === undefined ? this.#st.labels.all() : this.#st.labelsOf.all(tripletId)) as Array<{ triplet_id: string; metric: string; value: number; reviewer: string | null; created_ms: number }>;
    return rows.map((r) => ({ tripletId: r.triplet_id, metric: r.metric, value: r.value === 1 ? 1 : 0, ...(r.reviewer !== null ? { reviewer: r.reviewer } : {}), createdMs: r.created_ms }));
  }

  /** Answers with at least one label. */
  labelledCount(): number {
    return Number((this.#st.labelled.get() as { n: number }).n);
  }

  /** Keeps fitted calibrations (one per metric and judge), so a restart uses them without refitting. */
  saveCalibrations(models: readonly SavedCalibration[]): void {
    if (this.#closed) return;
    for (const m of models) this.#st.saveCalibration.run(m.metric, m.judge, JSON.stringify(m));
  }

  /** The calibrations saved by {@link saveCalibrations}, in the shape the caller saved (the calibration room owns it). */
  calibrations<T extends SavedCalibration = SavedCalibration>(): T[] {
    return (this.#st.calibrations.all() as Array<{ body: string }>).map((r) => JSON.parse(r.body) as T);
  }

  /** Saves a named model (the topic model) as JSON. */
  saveModel(name: string, body: unknown): void {
    if (this.#closed) return;
    this.#db.prepare('INSERT INTO models (name, body) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET body = excluded.body').run(name, JSON.stringify(body));
  }

  /** A model saved by {@link saveModel}. */
  model<T>(name: string): T | undefined {
    const row = this.#db.prepare('SELECT body FROM models WHERE name = ?').get(name) as { body: string } | undefined;
    return row ? (JSON.parse(row.body) as T) : undefined;
  }

  /** Labels stored so far (a refit compares it with its last count). */
  labelCount(): number {
    return Number((this.#st.countLabels.get() as { n: number }).n);
  }

  /** Counts an answer not offered for review (over store.maxReviewItemsPerSecond). */
  countSkipped(): void {
    this.#skipped?.inc();
  }

  /** Counts a failed write (the caller caught it). */
  countError(op: 'add_item' | 'add_label'): void {
    this.#errors?.inc({ op });
  }

  /** Writes the buffered answers, then closes the database. Idempotent. */
  async shutdown(): Promise<void> {
    if (this.#closed) return;
    this.#flush();
    this.#closed = true;
    this.#db.close();
  }

  /** Writes the buffered answers now. */
  async forceFlush(): Promise<void> {
    this.#flush();
  }
}

/**
 * The history's tables in the embedded store (docs/history.md). Score sums arrive in memory (no I/O on
 * the scoring path) and are written in one transaction per `flushIntervalMs`; a maintenance pass merges
 * one-minute rollups older than `fineRetentionMs` into `coarseStepMs` ones, deletes what is older than
 * `retentionMs`, and holds the tables under `maxRows` / `maxFirings` (oldest first, counted). Every
 * statement binds its values.
 * @module
 */
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { Counter, Gauge, type Registry } from 'prom-client';
import type { PendingRollups } from './pending.ts';
import type { Firing, ReleaseChange, Rollup, SeriesKey } from './types.ts';

/** Options of {@link HistoryStore}; `db` is required, the rest default as in `config/ragwatch.yaml`. */
export interface HistoryStoreOptions {
  db: DatabaseSync;
  retentionMs?: number;
  fineRetentionMs?: number;
  coarseStepMs?: number;
  maxRows?: number;
  maxFirings?: number;
  registry?: Registry;
  now?: () => number;
}

const MIN = 60_000;
/** Share of `maxRows` evicted beyond the excess, so the eviction query runs once per many flushes. */
const EVICT_SLACK = 0.05;

type RollupRow = { service: string; metric: string; judge: string; release: string; start_min: number; step_min: number; answers: number; weight: number; wsum: number; wsq: number; ww: number; flagged: number | null };
type FiringRow = { name: string; service: string; metric: string; judge: string | null; severity: string | null; labels: string; start_ms: number; end_ms: number | null };

/** The history's SQLite tables: rollups per series and step, alert firings, releases' first and last answers. */
export class HistoryStore {
  readonly retentionMs: number;
  readonly fineRetentionMs: number;
  readonly coarseStepMs: number;
  readonly #db: DatabaseSync;
  readonly #maxRows: number;
  readonly #maxFirings: number;
  readonly #now: () => number;
  readonly #st: Record<string, StatementSync>;
  readonly #evictions: Counter<'reason'> | undefined;
  readonly #errors: Counter<'op'> | undefined;
  /** Series key (`service\0metric\0judge\0release`) → row id. */
  readonly #ids = new Map<string, number>();
  #closed = false;

  constructor(options: HistoryStoreOptions) {
    this.#db = options.db;
    this.retentionMs = options.retentionMs ?? 7 * 86_400_000;
    this.fineRetentionMs = options.fineRetentionMs ?? 86_400_000;
    this.coarseStepMs = options.coarseStepMs ?? 10 * MIN;
    this.#maxRows = options.maxRows ?? 1_000_000;
    this.#maxFirings = options.maxFirings ?? 20_000;
    this.#now = options.now ?? Date.now;
    this.#db.exec(`
      CREATE TABLE IF NOT EXISTS history_series (id INTEGER PRIMARY KEY, service TEXT NOT NULL, metric TEXT NOT NULL, judge TEXT NOT NULL, release TEXT NOT NULL, UNIQUE (service, metric, judge, release));
      CREATE TABLE IF NOT EXISTS history_rollups (series INTEGER NOT NULL, start_min INTEGER NOT NULL, step_min INTEGER NOT NULL, answers INTEGER NOT NULL, weight REAL NOT NULL, wsum REAL NOT NULL, wsq REAL NOT NULL, ww REAL NOT NULL, flagged REAL, PRIMARY KEY (series, start_min)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS history_firings (id INTEGER PRIMARY KEY, instance TEXT NOT NULL, name TEXT NOT NULL, service TEXT NOT NULL, metric TEXT NOT NULL, judge TEXT, severity TEXT, labels TEXT NOT NULL, start_ms INTEGER NOT NULL, end_ms INTEGER);
      CREATE INDEX IF NOT EXISTS history_firings_open ON history_firings (instance) WHERE end_ms IS NULL;
      CREATE INDEX IF NOT EXISTS history_firings_series ON history_firings (service, metric, start_ms);
      CREATE TABLE IF NOT EXISTS history_releases (service TEXT NOT NULL, release TEXT NOT NULL, first_ms INTEGER NOT NULL, last_ms INTEGER NOT NULL, PRIMARY KEY (service, release)) WITHOUT ROWID;
      CREATE TABLE IF NOT EXISTS history_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
      CREATE TEMP TABLE IF NOT EXISTS history_merge (series INTEGER NOT NULL, start_min INTEGER NOT NULL, step_min INTEGER NOT NULL, answers INTEGER NOT NULL, weight REAL NOT NULL, wsum REAL NOT NULL, wsq REAL NOT NULL, ww REAL NOT NULL, flagged REAL);`);
    const p = (sql: string) => this.#db.prepare(sql);
    const sums = 'answers, weight, wsum, wsq, ww, flagged';
    // A late minute may land in a merged step (same start): its sums are added, the step stays the wider one.
    const onConflict = `ON CONFLICT (series, start_min) DO UPDATE SET step_min = MAX(step_min, excluded.step_min), answers = answers + excluded.answers, weight = weight + excluded.weight, wsum = wsum + excluded.wsum, wsq = wsq + excluded.wsq, ww = ww + excluded.ww, flagged = CASE WHEN flagged IS NULL AND excluded.flagged IS NULL THEN NULL ELSE IFNULL(flagged, 0) + IFNULL(excluded.flagged, 0) END`;
    this.#st = {
      seriesIds: p('SELECT id, service, metric, judge, release FROM history_series'),
      insertSeries: p('INSERT INTO history_series (service, metric, judge, release) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING'),
      seriesId: p('SELECT id FROM history_series WHERE service = ? AND metric = ? AND judge = ? AND release = ?'),
      upsert: p(`INSERT INTO history_rollups (series, start_min, step_min, ${sums}) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?) ${onConflict}`),
      // `%` works on integers (a bound JS number is a REAL, and `/` would not truncate).
      collect: p(`INSERT INTO history_merge SELECT series, start_min - start_min % :c, :c, SUM(answers), SUM(weight), SUM(wsum), SUM(wsq), SUM(ww), SUM(flagged) FROM history_rollups WHERE series IN (SELECT id FROM history_series) AND start_min < :cut AND step_min < :c GROUP BY series, start_min - start_min % :c`),
      dropMerged: p('DELETE FROM history_rollups WHERE series IN (SELECT id FROM history_series) AND start_min < :cut AND step_min < :c'),
      merge: p(`INSERT INTO history_rollups (series, start_min, step_min, ${sums}) SELECT series, start_min, step_min, ${sums} FROM history_merge WHERE true ${onConflict}`),
      clearMerge: p('DELETE FROM history_merge'),
      expire: p('DELETE FROM history_rollups WHERE series IN (SELECT id FROM history_series) AND start_min < ?'),
      countRows: p('SELECT COUNT(*) AS n FROM history_rollups'),
      nthStart: p('SELECT start_min FROM history_rollups ORDER BY start_min LIMIT 1 OFFSET ?'),
      evictUpTo: p('DELETE FROM history_rollups WHERE series IN (SELECT id FROM history_series) AND start_min <= ?'),
      emptySeries: p('SELECT id, service, metric, judge, release FROM history_series s WHERE NOT EXISTS (SELECT 1 FROM history_rollups r WHERE r.series = s.id)'),
      deleteSeries: p('DELETE FROM history_series WHERE id = ?'),
      rollups: p(`SELECT s.service, s.metric, s.judge, s.release, r.start_min, r.step_min, r.${sums.split(', ').join(', r.')} FROM history_series s JOIN history_rollups r ON r.series = s.id
        WHERE s.service = :service AND s.metric = :metric AND (:judge IS NULL OR s.judge = :judge) AND (:release IS NULL OR s.release = :release) AND r.start_min >= :from AND r.start_min < :to ORDER BY r.start_min`),
      // One row per judge and step (releases summed) — a chart's work done in SQLite, not in JS objects.
      buckets: p(`SELECT s.judge, r.start_min - r.start_min % :step AS start_min, SUM(r.answers) AS answers, SUM(r.weight) AS weight, SUM(r.wsum) AS wsum, SUM(r.wsq) AS wsq, SUM(r.ww) AS ww, SUM(r.flagged) AS flagged, SUM(CASE WHEN r.flagged IS NULL THEN 0 ELSE r.weight END) AS fbase
        FROM history_series s JOIN history_rollups r ON r.series = s.id
        WHERE s.service = :service AND s.metric = :metric AND (:judge IS NULL OR s.judge = :judge) AND (:release IS NULL OR s.release = :release) AND r.start_min >= :from AND r.start_min < :to GROUP BY s.judge, r.start_min - r.start_min % :step`),
      catalog: p('SELECT DISTINCT s.service, s.metric, s.judge FROM history_series s WHERE EXISTS (SELECT 1 FROM history_rollups r WHERE r.series = s.id AND r.start_min >= ? AND r.start_min < ?) ORDER BY s.service, s.metric, s.judge'),
      metrics: p('SELECT DISTINCT metric FROM history_series ORDER BY metric'),
      openFiring: p('SELECT id FROM history_firings WHERE instance = ? AND end_ms IS NULL'),
      insertFiring: p('INSERT INTO history_firings (instance, name, service, metric, judge, severity, labels, start_ms, end_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)'),
      endFiring: p('UPDATE history_firings SET end_ms = ? WHERE id = ?'),
      closeOpen: p('UPDATE history_firings SET end_ms = MAX(start_ms, ?) WHERE end_ms IS NULL'),
      firings: p('SELECT name, service, metric, judge, severity, labels, start_ms, end_ms FROM history_firings WHERE service = ? AND metric = ? AND start_ms < ? AND (end_ms IS NULL OR end_ms >= ?) ORDER BY start_ms'),
      expireFirings: p('DELETE FROM history_firings WHERE end_ms IS NOT NULL AND end_ms < ?'),
      countFirings: p('SELECT COUNT(*) AS n FROM history_firings'),
      evictFirings: p('DELETE FROM history_firings WHERE id IN (SELECT id FROM history_firings ORDER BY start_ms, id LIMIT ?)'),
      upsertRelease: p('INSERT INTO history_releases (service, release, first_ms, last_ms) VALUES (?, ?, ?, ?) ON CONFLICT (service, release) DO UPDATE SET first_ms = MIN(first_ms, excluded.first_ms), last_ms = MAX(last_ms, excluded.last_ms)'),
      releases: p('SELECT service, release, first_ms, last_ms FROM history_releases ORDER BY service, first_ms'),
      releaseChanges: p('SELECT service, release, first_ms, last_ms FROM history_releases WHERE service = ? AND first_ms >= ? AND first_ms < ? ORDER BY first_ms'),
      expireReleases: p('DELETE FROM history_releases WHERE last_ms < ?'),
      setMeta: p('INSERT INTO history_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value'),
      meta: p('SELECT value FROM history_meta WHERE key = ?'),
    };
    this.#loadIds();
    // Firings still open were cut short by the end of the last process: they end where its last write did.
    const last = this.#st.meta.get('last_write_ms') as { value: number } | undefined;
    if (last) this.#st.closeOpen.run(last.value);
    if (options.registry) {
      const registers = [options.registry];
      this.#evictions = new Counter({ name: 'ragwatch_history_evictions_total', help: 'History rows deleted: past history.retention (reason retention) or over history.maxRows / history.maxFirings (max_rows, max_firings).', labelNames: ['reason'], registers });
      for (const reason of ['retention', 'max_rows', 'max_firings']) this.#evictions.inc({ reason }, 0);
      this.#errors = new Counter({ name: 'ragwatch_history_errors_total', help: 'History writes that failed (disk full, I/O error), by operation; the sums of a failed flush are lost (counted here).', labelNames: ['op'], registers });
      const counts = () => (this.#closed ? undefined : { rollups: this.rowCount(), series: this.#ids.size, firings: Number((this.#st.countFirings.get() as { n: number }).n) });
      new Gauge({
        name: 'ragwatch_history_rows',
        help: 'Rows of the history tables in the embedded store (rollups, series, firings).',
        labelNames: ['table'],
        registers,
        collect() {
          for (const [table, n] of Object.entries(counts() ?? {})) this.set({ table }, n);
        },
      });
    }
  }

  /** Series held (with rows or about to get some). */
  get seriesCount(): number {
    return this.#ids.size;
  }

  /** True when the series already has an id (it counts against nothing new). */
  hasSeries(key: SeriesKey): boolean {
    return this.#ids.has(keyOf(key));
  }

  /** Writes the pending sums and release sightings in one transaction. Never throws (a failure is counted). */
  write(pending: PendingRollups, releases: readonly ReleaseChange[]): void {
    if (this.#closed || (pending.size === 0 && releases.length === 0)) return;
    try {
      this.#db.exec('BEGIN');
      for (const { key, minute, sums } of pending.values()) {
        const id = this.#idOf(key);
        this.#st.upsert.run(id, minute, sums.answers, sums.weight, sums.weightedSum, sums.weightedSquares, sums.squaredWeights, sums.flaggedWeight ?? null);
      }
      for (const r of releases) this.#st.upsertRelease.run(r.service, r.release, r.firstMs, r.lastMs);
      this.#st.setMeta.run('last_write_ms', this.#now());
      this.#db.exec('COMMIT');
    } catch {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      this.#errors?.inc({ op: 'write' });
      this.#loadIds();
    }
  }

  /** The series ids as the database holds them (again after a rolled-back write made new ones). */
  #loadIds(): void {
    this.#ids.clear();
    try {
      for (const r of this.#st.seriesIds.all() as unknown as Array<SeriesKey & { id: number }>) this.#ids.set(keyOf(r), r.id);
    } catch {
      this.#errors?.inc({ op: 'read' });
    }
  }

  #idOf(key: SeriesKey): number {
    const k = keyOf(key);
    let id = this.#ids.get(k);
    if (id === undefined) {
      this.#st.insertSeries.run(key.service, key.metric, key.judge, key.release);
      id = Number((this.#st.seriesId.get(key.service, key.metric, key.judge, key.release) as { id: number }).id);
      this.#ids.set(k, id);
    }
    return id;
  }

  /** Merges old minutes into coarse steps, deletes what is past the retention, holds the row limits. Never throws. */
  maintain(): void {
    if (this.#closed) return;
    const now = this.#now();
    const c = this.coarseStepMs / MIN;
    const cut = Math.floor((now - this.fineRetentionMs) / this.coarseStepMs) * c;
    try {
      this.#db.exec('BEGIN');
      this.#st.collect.run({ c, cut });
      this.#st.dropMerged.run({ c, cut });
      this.#st.merge.run();
      this.#st.clearMerge.run();
      this.#evictions?.inc({ reason: 'retention' }, Number(this.#st.expire.run(Math.floor((now - this.retentionMs) / MIN)).changes));
      this.#evictions?.inc({ reason: 'retention' }, Number(this.#st.expireFirings.run(now - this.retentionMs).changes));
      this.#st.expireReleases.run(now - this.retentionMs);
      const rows = this.rowCount();
      if (rows > this.#maxRows) {
        const excess = rows - this.#maxRows + Math.floor(this.#maxRows * EVICT_SLACK);
        const edge = this.#st.nthStart.get(excess - 1) as { start_min: number } | undefined;
        if (edge) this.#evictions?.inc({ reason: 'max_rows' }, Number(this.#st.evictUpTo.run(edge.start_min).changes));
      }
      const firings = Number((this.#st.countFirings.get() as { n: number }).n);
      if (firings > this.#maxFirings) this.#evictions?.inc({ reason: 'max_firings' }, Number(this.#st.evictFirings.run(firings - this.#maxFirings).changes));
      for (const s of this.#st.emptySeries.all() as unknown as Array<SeriesKey & { id: number }>) {
        this.#st.deleteSeries.run(s.id);
        this.#ids.delete(keyOf(s));
      }
      this.#db.exec('COMMIT');
    } catch {
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      this.#errors?.inc({ op: 'maintain' });
    }
  }

  /** Rollup rows held. */
  rowCount(): number {
    return Number((this.#st.countRows.get() as { n: number }).n);
  }

  /** The rollups of one metric of one service whose step starts in `[fromMs, toMs)`, oldest first. */
  rollups(q: { service: string; metric: string; judge?: string | undefined; release?: string | undefined; fromMs: number; toMs: number }): Rollup[] {
    const rows = this.#st.rollups.all({ service: q.service, metric: q.metric, judge: q.judge ?? null, release: q.release ?? null, from: Math.floor(q.fromMs / MIN), to: Math.ceil(q.toMs / MIN) }) as RollupRow[];
    return rows.map((r) => ({ service: r.service, metric: r.metric, judge: r.judge, release: r.release, startMs: r.start_min * MIN, stepMs: r.step_min * MIN, answers: r.answers, weight: r.weight, weightedSum: r.wsum, weightedSquares: r.wsq, squaredWeights: r.ww, flaggedWeight: r.flagged ?? undefined }));
  }

  /**
   * The rollups of one metric of one service summed per judge into steps of `stepMs` (whole minutes,
   * aligned to the epoch), releases summed unless one is asked: what a chart draws. `flaggedBase` is the
   * weight of the answers that had a threshold (the flagged share's denominator).
   */
  buckets(q: { service: string; metric: string; judge?: string | undefined; release?: string | undefined; fromMs: number; toMs: number; stepMs: number }): Array<Rollup & { flaggedBase: number }> {
    const step = Math.max(1, Math.round(q.stepMs / MIN));
    const rows = this.#st.buckets.all({ service: q.service, metric: q.metric, judge: q.judge ?? null, release: q.release ?? null, from: Math.floor(q.fromMs / MIN), to: Math.ceil(q.toMs / MIN), step }) as Array<Omit<RollupRow, 'service' | 'metric' | 'release' | 'step_min'> & { fbase: number }>;
    return rows.map((r) => ({ service: q.service, metric: q.metric, judge: r.judge, release: q.release ?? '', startMs: r.start_min * MIN, stepMs: step * MIN, answers: r.answers, weight: r.weight, weightedSum: r.wsum, weightedSquares: r.wsq, squaredWeights: r.ww, flaggedWeight: r.flagged ?? undefined, flaggedBase: r.fbase }));
  }

  /** Services and their metric × judge series with rollups in `[fromMs, toMs)`. */
  catalog(fromMs: number, toMs: number): Array<{ service: string; metric: string; judge: string }> {
    return this.#st.catalog.all(Math.floor(fromMs / MIN), Math.ceil(toMs / MIN)) as Array<{ service: string; metric: string; judge: string }>;
  }

  /** Metric names of every series held. */
  metrics(): string[] {
    return (this.#st.metrics.all() as Array<{ metric: string }>).map((r) => r.metric);
  }

  /** Records a firing (opens the instance unless open) or a resolution (closes it). Never throws. */
  recordFiring(f: Omit<Firing, 'endMs'> & { endMs?: number | undefined }, resolved: boolean): void {
    if (this.#closed) return;
    const instance = JSON.stringify([f.name, f.service, f.metric, f.judge ?? '', Object.entries(f.labels).sort(([a], [b]) => a.localeCompare(b))]);
    try {
      const open = this.#st.openFiring.get(instance) as { id: number } | undefined;
      if (!resolved) {
        if (!open) this.#st.insertFiring.run(instance, f.name, f.service, f.metric, f.judge ?? null, f.severity ?? null, JSON.stringify(f.labels), f.startMs, null);
      } else if (open) this.#st.endFiring.run(f.endMs ?? this.#now(), open.id);
      else this.#st.insertFiring.run(instance, f.name, f.service, f.metric, f.judge ?? null, f.severity ?? null, JSON.stringify(f.labels), f.startMs, f.endMs ?? this.#now());
    } catch {
      this.#errors?.inc({ op: 'firing' });
    }
  }

  /** Firings of one metric of one service that overlap `[fromMs, toMs)`. */
  firings(service: string, metric: string, fromMs: number, toMs: number): Firing[] {
    return (this.#st.firings.all(service, metric, toMs, fromMs) as FiringRow[]).map((r) => ({ name: r.name, service: r.service, metric: r.metric, judge: r.judge ?? undefined, severity: r.severity ?? undefined, labels: JSON.parse(r.labels) as Record<string, string>, startMs: r.start_ms, endMs: r.end_ms ?? undefined }));
  }

  /** Every release held (the sink reloads its bound from them). */
  releases(): ReleaseChange[] {
    return (this.#st.releases.all() as Array<{ service: string; release: string; first_ms: number; last_ms: number }>).map((r) => ({ service: r.service, release: r.release, firstMs: r.first_ms, lastMs: r.last_ms }));
  }

  /** Releases of a service first seen in `[fromMs, toMs)`. */
  releaseChanges(service: string, fromMs: number, toMs: number): ReleaseChange[] {
    return (this.#st.releaseChanges.all(service, fromMs, toMs) as Array<{ service: string; release: string; first_ms: number; last_ms: number }>).map((r) => ({ service: r.service, release: r.release, firstMs: r.first_ms, lastMs: r.last_ms }));
  }

  /** Closes the database. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#db.close();
  }
}

/** The map key of a series. */
export const keyOf = (k: SeriesKey): string => `${k.service}\u0000${k.metric}\u0000${k.judge}\u0000${k.release}`;

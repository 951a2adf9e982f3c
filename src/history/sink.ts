/**
 * The history as a consumer of score records (a sink of the scorer) and of alert notifications: each
 * production answer adds its scores to the pending minute of its series (memory only), its release is
 * noted (bounded per service), and a timer writes the pending sums in one transaction every
 * `flushIntervalMs` and runs the store's maintenance. Alert notices (firing, resolved) become firings.
 * @module
 */
import { Counter, type Registry } from 'prom-client';
import type { AlertNotice } from '../metrics/notifier.ts';
import type { RecordSink } from '../scorer/record-sinks.ts';
import type { SampledTriplet, ScoreRecord } from '../triplet.ts';
import { addScore, emptySums, type PendingRollups } from './pending.ts';
import { keyOf, type HistoryStore } from './store.ts';
import type { ReleaseChange, SeriesKey } from './types.ts';

/** Options of {@link HistorySink}; `store` is required. */
export interface HistorySinkOptions {
  store: HistoryStore;
  /** Alert threshold by metric: an answer at or below it is flagged. Default: none (no flagged share). */
  thresholds?: () => Readonly<Record<string, number>>;
  /** The bounded `service` label of a record (the metrics consumer's). Default: the record's service. */
  serviceOf?: (record: ScoreRecord) => string;
  /** Whether a metric is one of the configuration's (its registry's `has`): others are counted, not kept. Default: every metric. */
  knows?: (metric: string) => boolean;
  /** Series kept at most (`history.maxSeries`). Default 5000. */
  maxSeries?: number;
  /** Releases per service (`history.maxReleasesPerService`); further ones count as `other`. Default 20. */
  maxReleasesPerService?: number;
  /** Pending minute sums at most between writes; beyond, answers are counted and not kept. Default 50000. */
  maxPending?: number;
  /** Write interval, milliseconds (`history.flushIntervalMs`). Default 10000. */
  flushIntervalMs?: number;
  /** Maintenance interval (merge, retention, limits), milliseconds. Default 300000. */
  maintainIntervalMs?: number;
  registry?: Registry;
  now?: () => number;
}

/** A record stamped this far ahead of the clock is taken as now (a skewed host clock). */
const MAX_FUTURE_MS = 5 * 60_000;
/** Labels a firing is named and filed by; the others tell its instances apart. */
const FILED = new Set(['alertname', 'service', 'metric', 'judge', 'severity', 'source']);

export class HistorySink implements RecordSink {
  readonly #o: Required<Omit<HistorySinkOptions, 'registry' | 'serviceOf' | 'thresholds' | 'knows'>> & Pick<HistorySinkOptions, 'serviceOf' | 'thresholds' | 'knows'>;
  readonly #store: HistoryStore;
  #pending: PendingRollups = new Map();
  /** Service → release → first and last answer; `dirty` ones are written at the next flush. */
  readonly #releases = new Map<string, Map<string, ReleaseChange & { dirty: boolean }>>();
  /** New series waiting for their first write (they count against `maxSeries` already). */
  readonly #newSeries = new Set<string>();
  readonly #dropped: Counter<'reason'> | undefined;
  readonly #other: Counter | undefined;
  #flushTimer: NodeJS.Timeout | undefined;
  #maintainTimer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: HistorySinkOptions) {
    this.#o = { maxSeries: 5_000, maxReleasesPerService: 20, maxPending: 50_000, flushIntervalMs: 10_000, maintainIntervalMs: 300_000, now: Date.now, ...options };
    this.#store = options.store;
    for (const r of this.#store.releases()) this.#serviceReleases(r.service).set(r.release, { ...r, dirty: false });
    if (options.registry) {
      const registers = [options.registry];
      this.#dropped = new Counter({ name: 'ragwatch_history_dropped_total', help: 'Scores not added to the history, by reason: max_series (history.maxSeries reached), too_old (stamped before history.retention), pending_full (too many unwritten minutes), unknown_metric (not a metric of the configuration, e.g. a newer scorer\'s evaluator), error (a failure adding it).', labelNames: ['reason'], registers });
      for (const reason of ['max_series', 'too_old', 'pending_full', 'unknown_metric', 'error']) this.#dropped.inc({ reason }, 0);
      this.#other = new Counter({ name: 'ragwatch_history_releases_other_total', help: 'Answers kept under release "other": their service had history.maxReleasesPerService releases within the retention.', registers });
    }
  }

  /** Starts the write and maintenance timers (unref'd) and maintains once. Idempotent. */
  start(): void {
    if (this.#flushTimer || this.#closed) return;
    this.#flushTimer = setInterval(() => this.flush(), this.#o.flushIntervalMs).unref();
    this.#maintainTimer = setInterval(() => this.maintain(), this.#o.maintainIntervalMs).unref();
    this.maintain();
  }

  #serviceReleases(service: string): Map<string, ReleaseChange & { dirty: boolean }> {
    let m = this.#releases.get(service);
    if (!m) this.#releases.set(service, (m = new Map()));
    return m;
  }

  /** The release an answer counts under: its own while its service has room, else `other`. */
  #release(service: string, release: string | undefined, ms: number): string {
    if (release === undefined || release === '') return '';
    const known = this.#serviceReleases(service);
    const r = known.get(release);
    if (r) {
      if (ms < r.firstMs || ms > r.lastMs) Object.assign(r, { firstMs: Math.min(r.firstMs, ms), lastMs: Math.max(r.lastMs, ms), dirty: true });
      return release;
    }
    if (known.size >= this.#o.maxReleasesPerService) {
      this.#other?.inc();
      return 'other';
    }
    known.set(release, { service, release, firstMs: ms, lastMs: ms, dirty: true });
    return release;
  }

  /** Adds a production answer's scores to their minutes. Never throws, never does I/O. */
  onRecord(record: ScoreRecord, triplet?: SampledTriplet): void {
    if (this.#closed || record.origin === 'probe') return;
    try {
      this.#add(record, triplet);
    } catch {
      // A wiring callback that throws (serviceOf, thresholds) must not reach the scorer.
      this.#dropped?.inc({ reason: 'error' });
    }
  }

  #add(record: ScoreRecord, triplet: SampledTriplet | undefined): void {
    const now = this.#o.now();
    const stamped = Date.parse(record.timestamp);
    const ms = Number.isFinite(stamped) && stamped <= now + MAX_FUTURE_MS ? stamped : now;
    const entries = Object.entries(record.scores).filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1]));
    if (ms < now - this.#store.retentionMs) {
      this.#dropped?.inc({ reason: 'too_old' }, entries.length);
      return;
    }
    const service = this.#o.serviceOf?.(record) ?? record.service;
    const release = this.#release(service, record.release ?? triplet?.release, ms);
    const thresholds = this.#o.thresholds?.() ?? {};
    const minute = Math.floor(ms / 60_000);
    const weight = Number.isFinite(record.weight) && record.weight > 0 ? record.weight : 1;
    for (const [metric, score] of entries) {
      if (this.#o.knows && !this.#o.knows(metric)) {
        this.#dropped?.inc({ reason: 'unknown_metric' });
        continue;
      }
      const key: SeriesKey = { service, metric, judge: record.judge.kind, release };
      const seriesKey = keyOf(key);
      const pendingKey = `${seriesKey}\u0000${minute}`;
      let p = this.#pending.get(pendingKey);
      if (!p) {
        if (this.#pending.size >= this.#o.maxPending) {
          this.#dropped?.inc({ reason: 'pending_full' });
          continue;
        }
        if (!this.#store.hasSeries(key) && !this.#newSeries.has(seriesKey)) {
          if (this.#store.seriesCount + this.#newSeries.size >= this.#o.maxSeries) {
            this.#dropped?.inc({ reason: 'max_series' });
            continue;
          }
          this.#newSeries.add(seriesKey);
        }
        this.#pending.set(pendingKey, (p = { key, minute, sums: emptySums() }));
      }
      const threshold = thresholds[metric];
      addScore(p.sums, score, weight, threshold === undefined ? undefined : score <= threshold);
    }
  }

  /**
   * The notifier's listener: each changed alert of a service and metric becomes (or ends) a firing.
   * Alerts without both labels (probe alerts) are not about a chart and are left out.
   */
  readonly onNotices = (notices: readonly AlertNotice[]): void => {
    for (const n of notices) {
      const { alertname, service, metric, judge, severity } = n.labels;
      if (!alertname || !service || !metric) continue;
      const labels = Object.fromEntries(Object.entries(n.labels).filter(([k]) => !FILED.has(k)));
      const startMs = Date.parse(n.startsAt);
      const endMs = Date.parse(n.endsAt);
      if (!Number.isFinite(startMs)) continue;
      this.#store.recordFiring({ name: alertname, service, metric, judge, severity, labels, startMs, endMs: Number.isFinite(endMs) ? endMs : undefined }, n.status === 'resolved');
    }
  };

  /** Writes the pending sums and release sightings now (one transaction). */
  flush(): void {
    if (this.#closed) return;
    const dirty: ReleaseChange[] = [];
    for (const m of this.#releases.values()) {
      for (const r of m.values()) {
        if (!r.dirty) continue;
        r.dirty = false;
        dirty.push({ service: r.service, release: r.release, firstMs: r.firstMs, lastMs: r.lastMs });
      }
    }
    const pending = this.#pending;
    this.#pending = new Map();
    this.#store.write(pending, dirty);
    this.#newSeries.clear();
  }

  /** Writes, then merges old minutes, deletes what is past the retention and holds the limits. */
  maintain(): void {
    if (this.#closed) return;
    this.flush();
    this.#store.maintain();
    const oldest = this.#o.now() - this.#store.retentionMs;
    for (const m of this.#releases.values()) for (const [name, r] of m) if (r.lastMs < oldest) m.delete(name);
  }

  /** Writes what is pending and stops the timers (the store is closed by its owner). Idempotent. */
  async shutdown(): Promise<void> {
    if (this.#closed) return;
    clearInterval(this.#flushTimer);
    clearInterval(this.#maintainTimer);
    this.flush();
    this.#closed = true;
  }
}

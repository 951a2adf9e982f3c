/**
 * Change alerts in process (docs/alerts.md): a sink of the scorer that keeps, per metric × judge ×
 * service, the flagged counts of production answers in per-minute snapshots (bounded: the baseline
 * and long window, whatever the traffic), and at each evaluation tests the long and the short recent
 * windows against the trailing baseline. Same semantics as the generated rules (`change/rules.ts`).
 * Drives `ragwatch_change_alert_active` and `ragwatch_change_baseline_ready`, notifies, and saves its
 * snapshots in the embedded store so a restart does not blind it.
 * @module
 */
import { Gauge } from 'prom-client';
import { evaluateEvery, type FlagMonitorOptions } from '../metrics/flag-rules.ts';
import type { AlertNotice } from '../metrics/notifier.ts';
import type { RecordSink } from '../scorer/record-sinks.ts';
import type { SampledTriplet, ScoreRecord } from '../triplet.ts';
import { FlagSeries, type FlagSeriesState } from '../metrics/flag-series.ts';
import { changeAlertName } from './rules.ts';
import { baselineShare, changeVerdict, effectiveSamples, windowTest } from './statistic.ts';
import type { ChangeRule, ChangeSettings, ChangeVerdict } from './types.ts';

/** Where the snapshots are saved (the review store's named models). */
export interface ChangeStateStore {
  saveModel(name: string, body: unknown): void;
  model<T>(name: string): T | undefined;
}

/** Options of {@link ChangeMonitor}; `rules` and `tiers` are required. */
export interface ChangeMonitorOptions extends FlagMonitorOptions {
  rules: readonly ChangeRule[];
  /** The enabled tiers (page: a sudden drop; ticket: a slow drift). */
  tiers: readonly ChangeSettings[];
  /** Saves and restores the snapshots. */
  store?: ChangeStateStore;
  /** What moved: the cell (release, model, route, topic …) whose share of answers at or below `cut` stands highest above the `baseline` share (the weakness map's live window). */
  movedCell?: (metric: string, judge: string, cut: number, baseline: number) => string | undefined;
}

/** One series' state in one tier as `/api/status` shows it. */
export interface ChangeSeriesStatus {
  tier: ChangeSettings['tier'];
  metric: string;
  judge: string;
  service: string;
  state: 'no_baseline' | 'ok' | 'firing';
  baseline: number | null;
  baselineSamples: number;
  recent: number | null;
  recentSamples: number;
  z: number | null;
  firingSinceMs?: number;
}

interface Entry {
  settings: ChangeSettings;
  metric: string;
  judge: string;
  service: string;
  series: FlagSeries;
  verdict?: ChangeVerdict;
  firingSinceMs?: number;
  /** The start of the recent window with the strongest evidence when it started firing. */
  visibleSinceMs?: number;
  /** What moved, found once when it started firing (it scans the weakness map's live window). */
  moved?: string;
  lastTrueMs?: number;
}

/** Name of the saved snapshots in the store. */
const STATE_MODEL = 'change-alerts';
const SEP = '\u0000';

export class ChangeMonitor implements RecordSink {
  readonly #o: ChangeMonitorOptions;
  readonly #cuts: ReadonlyMap<string, number>;
  readonly #calibrated: ReadonlySet<string>;
  /** Per tier (in `tiers` order): series by metric, judge and service. */
  readonly #series: Array<Map<string, Entry>>;
  readonly #now: () => number;
  readonly #active: Gauge<'metric' | 'severity'> | undefined;
  readonly #ready: Gauge<'metric' | 'judge' | 'service'> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #lastSaveMs = 0;
  #shutdown: Promise<void> | undefined;

  constructor(options: ChangeMonitorOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#cuts = new Map(options.rules.map((r) => [r.metric, r.cut]));
    this.#calibrated = new Set(options.rules.filter((r) => r.on === 'calibrated').map((r) => r.metric));
    this.#series = options.tiers.map(() => new Map());
    const registers = options.registry ? [options.registry] : [];
    if (registers.length > 0) {
      this.#active = new Gauge({ name: 'ragwatch_change_alert_active', help: 'In-process change alerts: 1 while the share of flagged answers of the metric is significantly and materially above its own baseline for some judge/service (docs/alerts.md).', labelNames: ['metric', 'severity'], registers });
      const series = this.#series;
      const now = this.#now;
      new Gauge({
        name: 'ragwatch_change_flagged_share_ratio',
        help: 'Change alerts (first tier, page by default), at scrape time: the weighted share of answers at or below the metric\'s threshold over the long window (window="recent") and over its baseline (window="baseline", once ready), by metric, judge and service.',
        labelNames: ['metric', 'judge', 'service', 'window'],
        registers,
        collect() {
          this.reset();
          // Computed at scrape time (two snapshot lookups per window), not at the last evaluation: the panel does not wait for the timer.
          const t = now();
          for (const e of series[0]?.values() ?? []) {
            const v = verdictAt(e, t);
            if (v?.long.recent != null) this.set({ metric: e.metric, judge: e.judge, service: e.service, window: 'recent' }, v.long.recent);
            if (v?.baseline != null) this.set({ metric: e.metric, judge: e.judge, service: e.service, window: 'baseline' }, v.baseline);
          }
        },
      });
      this.#ready = new Gauge({ name: 'ragwatch_change_baseline_ready', help: 'Change alerts: 1 once the series\' baseline holds alerts.change.minBaselineSamples judged answers, 0 while there is no baseline yet (it cannot fire).', labelNames: ['metric', 'judge', 'service'], registers });
    }
    this.#restore();
  }

  /** Metrics with a change alert. */
  get metrics(): string[] {
    return [...this.#cuts.keys()];
  }

  /** Adds a production answer's flags. Never throws. */
  onRecord(record: ScoreRecord, _triplet?: SampledTriplet): void {
    const now = this.#now();
    const service = this.#o.serviceOf?.(record) ?? record.service;
    for (const [metric, score] of Object.entries(record.scores)) {
      const cut = this.#cuts.get(metric);
      if (cut === undefined || score === undefined || !Number.isFinite(score) || !(record.weight > 0)) continue;
      let flagged: boolean | number = score <= cut;
      if (this.#calibrated.has(metric)) {
        // Without a calibration for this judge the calibrated share cannot be computed: the answer is skipped, as the rules skip it.
        const good = this.#o.probability?.(metric, record.judge.kind, score);
        if (good === undefined) continue;
        flagged = 1 - good;
      }
      const key = metric + SEP + record.judge.kind + SEP + service;
      for (let t = 0; t < this.#series.length; t++) this.#entry(t, key, metric, record.judge.kind, service, now).series.add(now, record.weight, flagged);
    }
  }

  /** Tests every series now; updates the gauges, notifies changes, saves the snapshots when due. Returns the firing series. */
  evaluate(): ChangeSeriesStatus[] {
    const now = this.#now();
    const all: AlertNotice[] = [];
    const changed: AlertNotice[] = [];
    const firing = new Set<string>();
    const out: ChangeSeriesStatus[] = [];
    // Notices are built only for a notifier that sends them.
    const notify = this.#o.notifier?.enabled === true;
    for (const e of this.#entries()) {
      const s = e.settings;
      const c = e.series.stepOf(now);
      const steps = (ms: number) => Math.round(ms / s.stepMs);
      const v = (e.verdict = verdictAt(e, now));
      if (s === this.#o.tiers[0]) this.#ready?.set({ metric: e.metric, judge: e.judge, service: e.service }, v.baselineReady ? 1 : 0);
      const wasFiring = e.firingSinceMs !== undefined;
      if (v.firing) e.lastTrueMs = now;
      const keep = e.lastTrueMs !== undefined && now - e.lastTrueMs < s.keepFiringForMs;
      if (v.firing || (wasFiring && keep)) {
        if (!wasFiring) {
          e.firingSinceMs = now;
          e.visibleSinceMs = visibleSince(e, c, steps, s);
          const cut = this.#cuts.get(e.metric)!;
          const moved = v.baseline !== null && !this.#calibrated.has(e.metric) ? this.#o.movedCell?.(e.metric, e.judge, cut, v.baseline) : undefined;
          if (moved !== undefined) e.moved = moved;
          if (notify) changed.push(this.#notice(e, 'firing', now));
        }
        if (notify) all.push(this.#notice(e, 'firing', now));
        firing.add(`${e.metric}\u0000${s.tier}`);
        out.push(statusOf(e));
      } else if (wasFiring) {
        if (notify) {
          const n = this.#notice(e, 'resolved', now);
          changed.push(n);
          all.push(n);
        }
        delete e.firingSinceMs;
        delete e.visibleSinceMs;
        delete e.moved;
      }
    }
    if (this.#active) for (const metric of this.#cuts.keys()) for (const { tier } of this.#o.tiers) this.#active.set({ metric, severity: tier }, firing.has(`${metric}\u0000${tier}`) ? 1 : 0);
    if (notify) this.#o.notifier!.send(all, changed);
    if (now - this.#lastSaveMs >= (this.#o.saveIntervalMs ?? 300_000)) this.save();
    return out;
  }

  /** Every series: no baseline yet, ok or firing, with the last evaluation's figures. */
  status(): ChangeSeriesStatus[] {
    return [...this.#entries()].map(statusOf);
  }

  /** Starts the periodic evaluation (unref'd). Idempotent. */
  start(): void {
    if (this.#timer) return;
    this.#timer = evaluateEvery(() => this.evaluate(), this.#o, 'change alert evaluation failed');
  }

  /** Saves the snapshots in the store (never throws: a full disk only costs the next restart its history). */
  save(): void {
    this.#lastSaveMs = this.#now();
    const store = this.#o.store;
    if (!store) return;
    try {
      const series = [...this.#entries()].map((e) => ({ tier: e.settings.tier, metric: e.metric, judge: e.judge, service: e.service, state: e.series.state() }));
      store.saveModel(STATE_MODEL, { version: 2, savedMs: this.#lastSaveMs, series });
    } catch (err) {
      this.#o.logger?.warn({ err }, 'change alert baseline not saved');
    }
  }

  /** Stops the timer and saves the snapshots. Idempotent. */
  shutdown(): Promise<void> {
    return (this.#shutdown ??= (async () => {
      if (this.#timer) clearInterval(this.#timer);
      this.#timer = undefined;
      this.save();
      await this.#o.notifier?.forceFlush();
    })());
  }

  *#entries(): Iterable<Entry> {
    for (const tier of this.#series) yield* tier.values();
  }

  #entry(tier: number, key: string, metric: string, judge: string, service: string, now: number): Entry {
    const map = this.#series[tier]!;
    let e = map.get(key);
    if (!e) {
      const settings = this.#o.tiers[tier]!;
      e = { settings, metric, judge, service, series: new FlagSeries(settings.baselineMs + settings.windowMs, now, settings.stepMs) };
      map.set(key, e);
    }
    return e;
  }

  #restore(): void {
    let saved: { version: number; series: Array<{ tier: string; metric: string; judge: string; service: string; state: FlagSeriesState }> } | undefined;
    try {
      saved = this.#o.store?.model(STATE_MODEL);
    } catch (err) {
      this.#o.logger?.warn({ err }, 'change alert baseline not restored');
    }
    if (saved?.version !== 2 || !Array.isArray(saved.series)) return;
    const now = this.#now();
    let restored = 0;
    for (const s of saved.series) {
      const tier = this.#o.tiers.findIndex((t) => t.tier === s.tier);
      if (tier < 0 || !this.#cuts.has(s.metric)) continue;
      // A ring of another length (the windows changed) is not restored: that tier starts afresh.
      if (this.#entry(tier, s.metric + SEP + s.judge + SEP + s.service, s.metric, s.judge, s.service, now).series.restore(s.state)) restored++;
    }
    this.#o.logger?.info({ series: restored }, 'change alert baselines restored');
  }

  #notice(e: Entry, status: 'firing' | 'resolved', now: number): AlertNotice {
    const v = e.verdict;
    const s = e.settings;
    const pct = (x: number | null | undefined) => (x === null || x === undefined ? 'n/a' : `${(x * 100).toFixed(1)} %`);
    const cut = this.#cuts.get(e.metric)!;
    const since = e.visibleSinceMs !== undefined ? `&since=${e.visibleSinceMs}` : '';
    const examples = this.#o.examplesUrl ? `${this.#o.examplesUrl}/examples?metric=${encodeURIComponent(e.metric)}&below=${cut}&service=${encodeURIComponent(e.service)}${since}` : '';
    return {
      status,
      labels: { alertname: changeAlertName(e.metric, s.tier), metric: e.metric, judge: e.judge, service: e.service, severity: s.tier, kind: 'change' },
      annotations: {
        summary: `${e.metric}: ${pct(v?.long.recent)} of answers at or below ${cut} over the last ${Math.round(s.windowMs / 60_000)}m vs ${pct(v?.baseline)} in its baseline, for ${e.service}`,
        description:
          `The share of ${e.metric} answers (${e.judge} judge) at or below ${cut} rose from ${pct(v?.baseline)} (baseline, n=${v?.baselineSamples ?? 0}) ` +
          `to ${pct(v?.long.recent)} (n=${v?.long.samples ?? 0}, z=${v?.long.z?.toFixed(1) ?? 'n/a'}) and ${pct(v?.short.recent)} over the short window (n=${v?.short.samples ?? 0}, z=${v?.short.z?.toFixed(1) ?? 'n/a'}).`,
        ...(e.visibleSinceMs !== undefined ? { visible_since: new Date(e.visibleSinceMs).toISOString() } : {}),
        ...(e.moved ? { moved: `${e.metric} ${e.moved}` } : {}),
        ...(examples ? { examples } : {}),
      },
      startsAt: new Date(e.firingSinceMs ?? now).toISOString(),
      endsAt: new Date(status === 'firing' ? now + 4 * (this.#o.intervalMs ?? 15_000) : now).toISOString(),
      generatorURL: '',
    };
  }
}

/** One series' state as `/api/status` shows it. */
function statusOf(e: Entry): ChangeSeriesStatus {
  const v = e.verdict;
  const out: ChangeSeriesStatus = {
    tier: e.settings.tier,
    metric: e.metric,
    judge: e.judge,
    service: e.service,
    state: e.firingSinceMs !== undefined ? 'firing' : v?.baselineReady ? 'ok' : 'no_baseline',
    baseline: v?.baseline ?? null,
    baselineSamples: v?.baselineSamples ?? 0,
    recent: v?.long.recent ?? null,
    recentSamples: v?.long.samples ?? 0,
    z: v?.long.z ?? null,
  };
  if (e.firingSinceMs !== undefined) out.firingSinceMs = e.firingSinceMs;
  return out;
}

/**
 * The first minute the drop is visible: of the recent windows from the short one up to the long one,
 * the start of the one where the evidence is strongest (largest z among those that test as a drop) —
 * for a step change that is where the step is (a window reaching further back is diluted by good
 * answers, a shorter one holds fewer bad ones).
 */
function visibleSince(e: Entry, c: number, steps: (ms: number) => number, s: ChangeSettings): number | undefined {
  const long = steps(s.windowMs);
  const base = e.series.counts(c - long - steps(s.baselineMs), c - long);
  const pb = baselineShare(base);
  const nb = effectiveSamples(base);
  let best: { k: number; z: number } | undefined;
  for (let k = steps(s.shortWindowMs); k <= long; k++) {
    const t = windowTest(e.series.counts(c - k, c + 1), pb, nb, s);
    if (t.drop && t.z !== null && (!best || t.z > best.z)) best = { k, z: t.z };
  }
  return best === undefined ? undefined : (c - best.k) * s.stepMs;
}

/** The verdict of a series at `now`: its baseline, long and short windows (the snapshots brought forward first). */
function verdictAt(e: Entry, now: number): ChangeVerdict {
  const s = e.settings;
  e.series.advance(now);
  const c = e.series.stepOf(now);
  const steps = (ms: number) => Math.round(ms / s.stepMs);
  const long = steps(s.windowMs);
  return changeVerdict(e.series.counts(c - long - steps(s.baselineMs), c - long), e.series.counts(c - long, c + 1), e.series.counts(c - steps(s.shortWindowMs), c + 1), s);
}

/**
 * Quality SLOs in process (docs/alerts.md): a sink of the scorer that keeps, per metric × judge ×
 * service, the bad answers (at or below the threshold) in snapshots — per minute over 6 hours for the
 * short burn windows, per hour over the SLO period for 3 days and the budget — and at each evaluation
 * applies the workbook's multiwindow burn-rate pairs, as the generated rules do (`slo/rules.ts`).
 * Drives `ragwatch_slo_error_budget_remaining_ratio` and `ragwatch_slo_alert_active`, and notifies.
 * @module
 */
import { Gauge, type Registry } from 'prom-client';
import { FlagSeries } from '../metrics/flag-series.ts';
import type { AlertNotice, AlertNotifier } from '../metrics/notifier.ts';
import type { RecordSink } from '../scorer/record-sinks.ts';
import type { SampledTriplet, ScoreRecord } from '../triplet.ts';
import { sloAlertName } from './rules.ts';
import { BURN_WINDOWS, type SloRule } from './types.ts';

const FINE_MS = 60_000;
const COARSE_MS = 3_600_000;
const FINE_SPAN_MS = 6 * 3_600_000;

/** Options of {@link SloMonitor}; `rules` is required. */
export interface SloMonitorOptions {
  rules: readonly SloRule[];
  registry?: Registry;
  notifier?: AlertNotifier;
  /** The bounded `service` label of a record. Default: the record's service. */
  serviceOf?: (record: ScoreRecord) => string;
  now?: () => number;
  /** Evaluation interval of the timer, milliseconds. Default 15000. */
  intervalMs?: number;
  /** How long an alert keeps firing after its condition stops holding, milliseconds. Default 300000. */
  keepFiringForMs?: number;
  examplesUrl?: string;
}

/** One firing SLO alert. */
export interface SloAlert {
  metric: string;
  judge: string;
  service: string;
  severity: 'page' | 'ticket';
  /** Bad share over the long window of the first pair that holds (the alert's value). */
  badShare: number;
  firingSinceMs: number;
}

interface Entry {
  rule: SloRule;
  judge: string;
  service: string;
  fine: FlagSeries;
  coarse: FlagSeries;
  firing: Partial<Record<'page' | 'ticket', { sinceMs: number; lastTrueMs: number; badShare: number }>>;
}

export class SloMonitor implements RecordSink {
  readonly #o: SloMonitorOptions;
  readonly #rules: ReadonlyMap<string, SloRule>;
  readonly #series = new Map<string, Entry>();
  readonly #now: () => number;
  readonly #budget: Gauge<'metric' | 'judge' | 'service'> | undefined;
  readonly #active: Gauge<'metric' | 'severity'> | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: SloMonitorOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#rules = new Map(options.rules.map((r) => [r.metric, r]));
    const registers = options.registry ? [options.registry] : [];
    if (registers.length > 0 && options.rules.length > 0) {
      this.#budget = new Gauge({ name: 'ragwatch_slo_error_budget_remaining_ratio', help: 'Quality SLO: the share of the error budget (1 − objective) left over the SLO period, by metric, judge and service; negative once spent (alerts.metrics.<metric>.slo).', labelNames: ['metric', 'judge', 'service'], registers });
      this.#active = new Gauge({ name: 'ragwatch_slo_alert_active', help: 'Quality SLO: 1 while a burn-rate alert of the metric is firing for some judge/service, by severity.', labelNames: ['metric', 'severity'], registers });
    }
  }

  /** Adds a production answer. Never throws. */
  onRecord(record: ScoreRecord, _triplet?: SampledTriplet): void {
    if (this.#rules.size === 0) return;
    const now = this.#now();
    const service = this.#o.serviceOf?.(record) ?? record.service;
    for (const [metric, score] of Object.entries(record.scores)) {
      const rule = this.#rules.get(metric);
      if (!rule || score === undefined || !Number.isFinite(score) || !(record.weight > 0)) continue;
      const e = this.#entry(rule, record.judge.kind, service, now);
      e.fine.add(now, record.weight, score <= rule.cut);
      e.coarse.add(now, record.weight, score <= rule.cut);
    }
  }

  /** The bad share of a series over the last `windowMs` (null without answers, or with fewer than `minSamples`). */
  #badShare(e: Entry, windowMs: number, now: number, minSamples = 1): number | null {
    const series = windowMs <= FINE_SPAN_MS ? e.fine : e.coarse;
    const step = windowMs <= FINE_SPAN_MS ? FINE_MS : COARSE_MS;
    const c = series.stepOf(now);
    const counts = series.counts(c - Math.round(windowMs / step), c + 1);
    return counts.weight > 0 && counts.samples >= minSamples ? counts.flagged / counts.weight : null;
  }

  /** Applies the burn-rate pairs now; updates the gauges and notifies changes. Returns the firing alerts. */
  evaluate(): SloAlert[] {
    const now = this.#now();
    const keepMs = this.#o.keepFiringForMs ?? 300_000;
    const all: AlertNotice[] = [];
    const changed: AlertNotice[] = [];
    const out: SloAlert[] = [];
    const active = new Set<string>();
    // Notices are built only for a notifier that sends them.
    const notify = this.#o.notifier?.enabled === true;
    for (const e of this.#series.values()) {
      e.fine.advance(now);
      e.coarse.advance(now);
      const budget = 1 - e.rule.objective;
      const period = this.#badShare(e, e.rule.periodMs, now);
      if (period !== null) this.#budget?.set({ metric: e.rule.metric, judge: e.judge, service: e.service }, 1 - period / budget);
      for (const severity of ['page', 'ticket'] as const) {
        let holds: number | undefined;
        for (const w of BURN_WINDOWS) {
          if (w.severity !== severity || holds !== undefined) continue;
          // A pair needs minSamples answers in its long window: one bad answer of the first is not a 100 % burn.
          const long = this.#badShare(e, w.longMs, now, e.rule.minSamples);
          const short = this.#badShare(e, w.shortMs, now);
          if (long !== null && short !== null && long > w.burnRate * budget && short > w.burnRate * budget) holds = long;
        }
        const state = e.firing[severity];
        if (holds !== undefined) {
          if (!state) {
            e.firing[severity] = { sinceMs: now, lastTrueMs: now, badShare: holds };
            if (notify) changed.push(this.#notice(e, severity, 'firing', now));
          } else Object.assign(state, { lastTrueMs: now, badShare: holds });
        } else if (state && now - state.lastTrueMs >= keepMs) {
          if (notify) {
            const n = this.#notice(e, severity, 'resolved', now);
            changed.push(n);
            all.push(n);
          }
          delete e.firing[severity];
        }
        const s = e.firing[severity];
        if (!s) continue;
        if (notify) all.push(this.#notice(e, severity, 'firing', now));
        active.add(`${e.rule.metric}\u0000${severity}`);
        out.push({ metric: e.rule.metric, judge: e.judge, service: e.service, severity, badShare: s.badShare, firingSinceMs: s.sinceMs });
      }
    }
    if (this.#active) for (const metric of this.#rules.keys()) for (const severity of ['page', 'ticket']) this.#active.set({ metric, severity }, active.has(`${metric}\u0000${severity}`) ? 1 : 0);
    if (notify) this.#o.notifier!.send(all, changed);
    return out;
  }

  /** The alerts firing at the last evaluation (no evaluation of its own). */
  active(): SloAlert[] {
    return [...this.#series.values()].flatMap((e) =>
      (['page', 'ticket'] as const).flatMap((severity) => {
        const s = e.firing[severity];
        return s ? [{ metric: e.rule.metric, judge: e.judge, service: e.service, severity, badShare: s.badShare, firingSinceMs: s.sinceMs }] : [];
      }),
    );
  }

  /** Starts the periodic evaluation (unref'd) when there is an SLO. Idempotent. */
  start(): void {
    if (this.#timer || this.#rules.size === 0) return;
    this.#timer = setInterval(() => this.evaluate(), this.#o.intervalMs ?? 15_000).unref();
  }

  /** Stops the timer. Idempotent. */
  async shutdown(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #entry(rule: SloRule, judge: string, service: string, now: number): Entry {
    const key = `${rule.metric}\u0000${judge}\u0000${service}`;
    let e = this.#series.get(key);
    if (!e) {
      const coarseSpan = Math.max(rule.periodMs, ...BURN_WINDOWS.map((w) => w.longMs));
      e = { rule, judge, service, fine: new FlagSeries(FINE_SPAN_MS, now, FINE_MS), coarse: new FlagSeries(coarseSpan, now, COARSE_MS), firing: {} };
      this.#series.set(key, e);
    }
    return e;
  }

  #notice(e: Entry, severity: 'page' | 'ticket', status: 'firing' | 'resolved', now: number): AlertNotice {
    const r = e.rule;
    const s = e.firing[severity];
    const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
    return {
      status,
      labels: { alertname: sloAlertName(r.metric), metric: r.metric, judge: e.judge, service: e.service, severity, kind: 'burn_rate' },
      annotations: {
        summary: `${r.metric}: ${pct(s?.badShare ?? 0)} of answers at or below ${r.cut} for ${e.service} burns the ${r.period} error budget of the ${(r.objective * 100).toFixed(1)} % SLO`,
        description: `Objective: ${(r.objective * 100).toFixed(1)} % of ${r.metric} answers above ${r.cut} over ${r.period}. ${severity === 'page' ? 'Burn rate over 14.4× for 1h and 5m, or over 6× for 6h and 30m' : 'Burn rate over 1× for 3d and 6h'}.`,
        ...(this.#o.examplesUrl ? { examples: `${this.#o.examplesUrl}/examples?metric=${encodeURIComponent(r.metric)}&below=${r.cut}&service=${encodeURIComponent(e.service)}` } : {}),
      },
      startsAt: new Date(s?.sinceMs ?? now).toISOString(),
      endsAt: new Date(status === 'firing' ? now + 4 * (this.#o.intervalMs ?? 15_000) : now).toISOString(),
      generatorURL: '',
    };
  }
}

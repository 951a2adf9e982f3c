/**
 * Users' feedback over time, in process: per service the negative share over `metrics.windowMs`
 * (`ragwatch_feedback_negative_ratio`, absent without feedback in the window: never 0 or NaN) and the
 * change alert on a rise of that share against the service's own baseline — the same test, tiers and
 * materiality as the flagged-share change alerts (the role passes the change room's verdict in), fed
 * with counts (each item weighs 1). Fed by every new feedback item the process holds (all of them in
 * split mode, through the labels topic), replayed from the store at start so a restart loses no window.
 * @module
 */
import { Gauge, type Registry } from 'prom-client';
import type { ChangeTierSettings } from '../metrics/change-tiers.ts';
import { FlagSeries, type FlagCounts } from '../metrics/flag-series.ts';
import type { AlertNotice, AlertNotifier } from '../metrics/notifier.ts';
import type { FeedbackItem } from './types.ts';

/** The settings of one tier: the change alerts' own, with the feedback alert's sample minimums. */
export type FeedbackTier = ChangeTierSettings;

/** What the change test says of one series (the change room's verdict, structurally). */
export interface FeedbackVerdict {
  baseline: number | null;
  baselineSamples: number;
  long: { recent: number | null; z: number | null; samples: number };
  firing: boolean;
}

/** Options of {@link FeedbackMonitor}. */
export interface FeedbackMonitorOptions {
  registry: Registry;
  /** Window of the negative-share gauge, milliseconds. */
  windowMs: number;
  /** The alert tiers; empty: no alert. */
  tiers: readonly FeedbackTier[];
  /** The change test: baseline, long and short window counts → verdict. */
  verdict: (baseline: FlagCounts, long: FlagCounts, short: FlagCounts, tier: FeedbackTier) => FeedbackVerdict;
  notifier?: AlertNotifier;
  intervalMs?: number;
  now?: () => number;
}

/** The alert name of a tier: `RagwatchNegativeFeedbackRise` (page), `RagwatchNegativeFeedbackDrift` (ticket). */
export function feedbackAlertName(tier: 'page' | 'ticket'): string {
  return tier === 'page' ? 'RagwatchNegativeFeedbackRise' : 'RagwatchNegativeFeedbackDrift';
}

interface Entry {
  service: string;
  window: FlagSeries;
  tiers: Array<{ series: FlagSeries; verdict?: FeedbackVerdict; firingSinceMs?: number; lastTrueMs?: number }>;
}

export class FeedbackMonitor {
  readonly #o: FeedbackMonitorOptions;
  readonly #now: () => number;
  readonly #series = new Map<string, Entry>();
  readonly #active: Gauge<'severity'>;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: FeedbackMonitorOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    const registers = [options.registry];
    const series = this.#series;
    const now = this.#now;
    const steps = Math.max(1, Math.round(options.windowMs / 60_000));
    new Gauge({
      name: 'ragwatch_feedback_negative_ratio',
      help: `Share of end users' feedback that is negative (thumbs down, or a rating at or below feedback.badRatingAtMost) over metrics.windowMs (${options.windowMs} ms), by service; absent without feedback in the window.`,
      labelNames: ['service'],
      registers,
      collect() {
        this.reset();
        const t = now();
        for (const e of series.values()) {
          e.window.advance(t);
          const c = e.window.stepOf(t);
          const counts = e.window.counts(c - steps + 1, c + 1);
          if (counts.weight > 0) this.set({ service: e.service }, counts.flagged / counts.weight);
        }
      },
    });
    this.#active = new Gauge({ name: 'ragwatch_feedback_alert_active', help: 'In-process alert on a rise of the negative feedback share against its own baseline (docs/feedback.md): 1 while firing for some service, by severity.', labelNames: ['severity'], registers });
    for (const t of options.tiers) this.#active.set({ severity: t.tier }, 0);
  }

  /** Adds one feedback item at its time (a replayed one at its stored time). */
  add(item: FeedbackItem): void {
    const e = this.#entry(item.service, item.createdMs);
    const negative = item.polarity === 'negative';
    e.window.add(item.createdMs, 1, negative);
    for (const t of e.tiers) t.series.add(item.createdMs, 1, negative);
  }

  #entry(service: string, nowMs: number): Entry {
    let e = this.#series.get(service);
    if (!e) {
      e = { service, window: new FlagSeries(this.#o.windowMs, nowMs), tiers: this.#o.tiers.map((t) => ({ series: new FlagSeries(t.baselineMs + t.windowMs, nowMs, t.stepMs) })) };
      this.#series.set(service, e);
    }
    return e;
  }

  /** Tests every service now; sets the gauges and notifies firing and resolved alerts. Returns the firing (service, tier) pairs. */
  evaluate(): Array<{ service: string; tier: 'page' | 'ticket'; verdict: FeedbackVerdict }> {
    const now = this.#now();
    const firing: Array<{ service: string; tier: 'page' | 'ticket'; verdict: FeedbackVerdict }> = [];
    const all: AlertNotice[] = [];
    const changed: AlertNotice[] = [];
    this.#o.tiers.forEach((tier, i) => {
      let any = false;
      for (const e of this.#series.values()) {
        const s = e.tiers[i]!;
        s.series.advance(now);
        const c = s.series.stepOf(now);
        const steps = (ms: number) => Math.round(ms / tier.stepMs);
        const long = steps(tier.windowMs);
        const v = (s.verdict = this.#o.verdict(s.series.counts(c - long - steps(tier.baselineMs), c - long), s.series.counts(c - long, c + 1), s.series.counts(c - steps(tier.shortWindowMs), c + 1), tier));
        if (v.firing) s.lastTrueMs = now;
        const keep = s.lastTrueMs !== undefined && now - s.lastTrueMs < tier.keepFiringForMs;
        if (v.firing || (s.firingSinceMs !== undefined && keep)) {
          const started = s.firingSinceMs === undefined;
          s.firingSinceMs ??= now;
          any = true;
          firing.push({ service: e.service, tier: tier.tier, verdict: v });
          const notice = this.#notice(e.service, tier, v, 'firing', s.firingSinceMs, now);
          all.push(notice);
          if (started) changed.push(notice);
        } else if (s.firingSinceMs !== undefined) {
          const notice = this.#notice(e.service, tier, v, 'resolved', s.firingSinceMs, now);
          all.push(notice);
          changed.push(notice);
          delete s.firingSinceMs;
        }
      }
      this.#active.set({ severity: tier.tier }, any ? 1 : 0);
    });
    if (this.#o.notifier?.enabled) this.#o.notifier.send(all, changed);
    return firing;
  }

  #notice(service: string, tier: FeedbackTier, v: FeedbackVerdict, status: 'firing' | 'resolved', sinceMs: number, now: number): AlertNotice {
    const pct = (x: number | null) => (x === null ? 'n/a' : `${(x * 100).toFixed(1)} %`);
    return {
      status,
      labels: { alertname: feedbackAlertName(tier.tier), service, severity: tier.tier, kind: 'feedback' },
      annotations: {
        summary: `${service}: ${pct(v.long.recent)} of users' feedback negative over the last ${Math.round(tier.windowMs / 60_000)}m vs ${pct(v.baseline)} in its baseline`,
        description: `The negative share of end users' feedback rose from ${pct(v.baseline)} (baseline, n=${v.baselineSamples}) to ${pct(v.long.recent)} (n=${v.long.samples}, z=${v.long.z?.toFixed(1) ?? 'n/a'}); docs/feedback.md.`,
      },
      startsAt: new Date(sinceMs).toISOString(),
      endsAt: new Date(status === 'firing' ? now + 4 * (this.#o.intervalMs ?? 15_000) : now).toISOString(),
      generatorURL: '',
    };
  }

  /** Starts the periodic evaluation (unref'd). Idempotent. */
  start(): void {
    if (this.#timer || this.#o.tiers.length === 0) return;
    this.#timer = setInterval(() => {
      try {
        this.evaluate();
      } catch {
        // An evaluation that throws is retried at the next tick; the gauges keep their last values.
      }
    }, this.#o.intervalMs ?? 15_000).unref();
  }

  /** Stops the timer. Idempotent. */
  shutdown(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

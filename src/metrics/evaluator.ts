/**
 * In-process alert evaluator with the generated rules' semantics (for users without rule
 * management): per metric × judge × service, the weighted mean over the metric's window below
 * its threshold AND ≥ minSamples judged samples, held for `for`, kept for `keepFiringFor` after
 * recovering. Drives `ragwatch_alert_active` and `ragwatch_diagnosis_active`, and notifies.
 * @module
 */
import type { Gauge } from 'prom-client';
import { DIAGNOSIS_COMPONENTS, diagnose, type Diagnosis } from './diagnosis.ts';
import { requireDurationMs } from './duration.ts';
import type { AlertNotice, AlertNotifier } from './notifier.ts';
import { alertName } from './rules.ts';
import type { ScoreWindows } from './score-windows.ts';

/** Resolved alert settings of one metric (durations in milliseconds). */
export interface MetricAlertRule {
  metric: string;
  threshold: number;
  alert: boolean;
  /** The window as configured (`30m`). */
  window: string;
  windowMs: number;
  minSamples: number;
  forMs: number;
  keepFiringForMs: number;
  severity: string;
  runbookUrl?: string;
  /** `calibrated`: on P(a human says good) instead of the raw score. */
  on: 'raw' | 'calibrated';
}

/** Converts the `alerts` config section into evaluator rules. */
export function alertRulesFromConfig(alerts: {
  metrics: Record<string, { threshold: number; alert: boolean; window: string; minSamples: number; for: string; keepFiringFor?: string | undefined; severity: string; runbookUrl?: string | undefined; on?: 'raw' | 'calibrated' }>;
  keepFiringFor: string;
}): MetricAlertRule[] {
  return Object.entries(alerts.metrics).map(([metric, a]) => {
    const rule: MetricAlertRule = {
      metric,
      threshold: a.threshold,
      alert: a.alert,
      window: a.window,
      windowMs: requireDurationMs(a.window),
      minSamples: a.minSamples,
      forMs: requireDurationMs(a.for),
      keepFiringForMs: requireDurationMs(a.keepFiringFor ?? alerts.keepFiringFor),
      severity: a.severity,
      on: a.on ?? 'raw',
    };
    if (a.runbookUrl) rule.runbookUrl = a.runbookUrl;
    return rule;
  });
}

/** One pending or firing alert instance. */
export interface ActiveAlert {
  name: string;
  metric: string;
  judge: string;
  service: string;
  severity: string;
  state: 'pending' | 'firing';
  /** Windowed mean at the last evaluation where the condition held. */
  value: number;
  samples: number;
  threshold: number;
  /** Epoch ms the condition first held. */
  activeSinceMs: number;
  /** Epoch ms the alert started firing. */
  firingSinceMs?: number;
  lastTrueMs: number;
  diagnosis: string;
  /** The metric's worst flagged weakness-map cell, when one is flagged (docs/weaknesses.md). */
  weakness?: string;
}

/** Options of {@link AlertEvaluator}; `rules` and `windows` are required. */
export interface AlertEvaluatorOptions {
  rules: readonly MetricAlertRule[];
  windows: ScoreWindows;
  /** Calibrated P(good) windows, for rules `on: calibrated` (their alerts never fire without). */
  calibratedWindows?: ScoreWindows;
  /** Window of `ragwatch_diagnosis_active`, milliseconds. Default 1800000. */
  diagnosisWindowMs?: number;
  alertActive?: Gauge<'metric' | 'severity'>;
  diagnosisActive?: Gauge<'component'>;
  notifier?: AlertNotifier;
  /** Base URL of the examples page, for the `examples` annotation. */
  examplesUrl?: string;
  /** Evaluation interval, milliseconds (also sets Alertmanager `endsAt`). Default 15000. */
  intervalMs?: number;
  now?: () => number;
  /** Names the metric's worst flagged weakness-map cell (all services), for the annotation and the diagnosis. */
  weakestCell?: (metric: string, judge: string) => string | undefined;
}

const NO_DIAGNOSIS = 'no diagnosis: the component metrics are within their thresholds or not measured';

export class AlertEvaluator {
  readonly #o: AlertEvaluatorOptions;
  readonly #now: () => number;
  readonly #intervalMs: number;
  readonly #thresholds: Record<string, number>;
  readonly #active = new Map<string, ActiveAlert>();
  #diagnoses: Diagnosis[] = [];
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(options: AlertEvaluatorOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#intervalMs = options.intervalMs ?? 15_000;
    this.#thresholds = Object.fromEntries(options.rules.map((r) => [r.metric, r.threshold]));
    for (const r of options.rules) if (r.alert) options.alertActive?.set({ metric: r.metric, severity: r.severity }, 0);
    for (const c of DIAGNOSIS_COMPONENTS) options.diagnosisActive?.set({ component: c }, 0);
  }

  /** Starts periodic evaluation (unref'd timer). Idempotent. */
  start(): void {
    if (this.#timer || this.#stopped) return;
    this.#timer = setInterval(() => this.evaluate(), this.#intervalMs);
    this.#timer.unref();
  }

  /** Diagnosis text for one judge/service over `windowMs`. */
  diagnosisFor(judge: string, service: string, windowMs: number): Diagnosis[] {
    const means: Record<string, number | undefined> = {};
    for (const a of this.#o.windows.aggregate(windowMs)) if (a.judge === judge && a.service === service) means[a.metric] = a.mean;
    return diagnose(means, this.#thresholds);
  }

  /** Evaluates every rule now; returns the alerts pending or firing afterwards. */
  evaluate(): ActiveAlert[] {
    const now = this.#now();
    const all: AlertNotice[] = [];
    const changed: AlertNotice[] = [];
    const seen = new Set<string>();
    for (const rule of this.#o.rules) {
      if (!rule.alert) continue;
      const source = rule.on === 'calibrated' ? this.#o.calibratedWindows : this.#o.windows;
      if (!source) continue;
      // The sample guard counts judged samples, calibrated or not.
      const raw = this.#o.windows.aggregate(rule.windowMs, rule.metric);
      const samples = new Map(raw.map((a) => [`${a.judge}\u0000${a.service}`, a.samples]));
      for (const agg of source === this.#o.windows ? raw : source.aggregate(rule.windowMs, rule.metric)) {
        const key = `${rule.metric}\u0000${agg.judge}\u0000${agg.service}`;
        const n = samples.get(`${agg.judge}\u0000${agg.service}`) ?? 0;
        const holds = agg.mean !== undefined && agg.mean < rule.threshold && n >= rule.minSamples;
        const current = this.#active.get(key);
        if (!holds) continue;
        seen.add(key);
        const weakness = this.#o.weakestCell?.(rule.metric, agg.judge);
        const diagnosis = [...this.diagnosisFor(agg.judge, agg.service, rule.windowMs).map((d) => d.text), ...(weakness ? [`weakest: ${rule.metric} ${weakness}`] : [])].join('; ') || NO_DIAGNOSIS;
        const alert: ActiveAlert = current ?? {
          name: alertName(rule.metric),
          metric: rule.metric,
          judge: agg.judge,
          service: agg.service,
          severity: rule.severity,
          state: 'pending',
          value: agg.mean!,
          samples: n,
          threshold: rule.threshold,
          activeSinceMs: now,
          lastTrueMs: now,
          diagnosis,
        };
        Object.assign(alert, { value: agg.mean!, samples: n, lastTrueMs: now, diagnosis });
        if (weakness) alert.weakness = weakness;
        else delete alert.weakness;
        this.#active.set(key, alert);
        if (alert.state === 'pending' && now - alert.activeSinceMs >= rule.forMs) {
          alert.state = 'firing';
          alert.firingSinceMs = now;
          changed.push(this.#notice(alert, rule, now, 'firing'));
        }
      }
    }
    for (const [key, alert] of this.#active) {
      if (seen.has(key)) continue;
      const rule = this.#o.rules.find((r) => r.metric === alert.metric)!;
      if (alert.state === 'pending' || now - alert.lastTrueMs >= rule.keepFiringForMs) {
        this.#active.delete(key);
        if (alert.state === 'firing') {
          const n = this.#notice(alert, rule, now, 'resolved');
          changed.push(n);
          all.push(n);
        }
      }
    }
    for (const alert of this.#active.values()) {
      if (alert.state !== 'firing') continue;
      const rule = this.#o.rules.find((r) => r.metric === alert.metric)!;
      all.push(this.#notice(alert, rule, now, 'firing'));
    }
    this.#updateGauges();
    if (this.#o.notifier?.enabled) this.#o.notifier.send(all, changed);
    return this.active();
  }

  #updateGauges(): void {
    for (const r of this.#o.rules) {
      if (!r.alert) continue;
      const firing = [...this.#active.values()].some((a) => a.metric === r.metric && a.state === 'firing');
      this.#o.alertActive?.set({ metric: r.metric, severity: r.severity }, firing ? 1 : 0);
    }
    // One aggregation for every judge/service group (not one per group).
    const groups = new Map<string, Record<string, number | undefined>>();
    for (const a of this.#o.windows.aggregate(this.#o.diagnosisWindowMs ?? 30 * 60_000)) {
      const key = `${a.judge}\u0000${a.service}`;
      let means = groups.get(key);
      if (!means) groups.set(key, (means = {}));
      means[a.metric] = a.mean;
    }
    this.#diagnoses = [...groups.values()].flatMap((means) => diagnose(means, this.#thresholds));
    const components = new Set(this.#diagnoses.map((d) => d.pattern.component));
    for (const c of DIAGNOSIS_COMPONENTS) this.#o.diagnosisActive?.set({ component: c }, components.has(c) ? 1 : 0);
  }

  #notice(alert: ActiveAlert, rule: MetricAlertRule, now: number, status: 'firing' | 'resolved'): AlertNotice {
    const annotations: Record<string, string> = {
      summary: `${alert.metric}${rule.on === 'calibrated' ? ' (calibrated P(good))' : ''} ${alert.value.toFixed(2)} < ${rule.threshold} over ${rule.window} (n=${alert.samples}) for ${alert.service}`,
      value: alert.value.toFixed(3),
      samples: String(alert.samples),
      diagnosis: alert.diagnosis,
    };
    if (this.#o.examplesUrl) {
      annotations.examples = `${this.#o.examplesUrl}/examples?metric=${alert.metric}&below=${rule.threshold}&service=${encodeURIComponent(alert.service)}`;
    }
    if (rule.runbookUrl) annotations.runbook_url = rule.runbookUrl;
    if (alert.weakness) annotations.weakness = `${alert.metric} ${alert.weakness}`;
    return {
      status,
      labels: { alertname: alert.name, metric: alert.metric, judge: alert.judge, service: alert.service, severity: alert.severity, source: 'ragwatch' },
      annotations,
      startsAt: new Date(alert.firingSinceMs ?? alert.activeSinceMs).toISOString(),
      endsAt: new Date(status === 'resolved' ? now : now + 4 * this.#intervalMs).toISOString(),
      generatorURL: this.#o.examplesUrl ? `${this.#o.examplesUrl}/api/status` : '',
    };
  }

  /** Alerts pending or firing. */
  active(): ActiveAlert[] {
    return [...this.#active.values()].map((a) => ({ ...a }));
  }

  /** Diagnoses of the last evaluation (over the diagnosis window). */
  diagnoses(): Diagnosis[] {
    return [...this.#diagnoses];
  }

  /** Stops the timer and waits for notifications in flight. Idempotent. */
  async shutdown(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#o.notifier?.forceFlush();
  }
}

/**
 * The metrics consumer of score records: windowed means, threshold gauges, the in-process alert
 * evaluator with diagnosis and notifications, and the examples buffer. It knows no other consumer:
 * what the evaluator needs of calibration and the weakness map comes in through its options.
 * @module
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { RagwatchConfig } from '../config/schema.ts';
import { metricRegistryOf, type MetricRegistry } from '../metric-registry.ts';
import type { RecordSink } from '../scorer/record-sinks.ts';
import type { Instruments } from '../telemetry/instruments.ts';
import type { SampledTriplet, ScoreRecord } from '../triplet.ts';
import { AlertEvaluator, alertRulesFromConfig, type ActiveAlert, type MetricAlertRule } from './evaluator.ts';
import { ExamplesBuffer } from './examples.ts';
import { AlertNotifier } from './notifier.ts';
import { examplesBaseUrl } from './rules.ts';
import { ScoreWindows, windowGauge } from './score-windows.ts';

/** The Alertmanager / webhook notifier of `alerts`, its requests counted in `ragwatch_alert_notifications_total` on `registry`. */
export function alertNotifier(config: RagwatchConfig, registry: Registry): AlertNotifier {
  const notifications = new Counter({ name: 'ragwatch_alert_notifications_total', help: 'Alert notifications sent by the in-process evaluators, by target (alertmanager, webhook) and outcome (ok, error).', labelNames: ['target', 'outcome'], registers: [registry] });
  const { alerts } = config;
  return new AlertNotifier({
    ...(alerts.alertmanager.url ? { alertmanagerUrl: alerts.alertmanager.url } : {}),
    ...(alerts.webhook.url ? { webhookUrl: alerts.webhook.url } : {}),
    timeoutMs: Math.max(alerts.alertmanager.timeoutMs, alerts.webhook.timeoutMs),
    onResult: (target, outcome) => notifications.inc({ target, outcome }),
  });
}

/** Options of {@link ScoreMetrics}; `config` and `instruments` are required. */
export interface ScoreMetricsOptions {
  config: RagwatchConfig;
  instruments: Instruments;
  /** Clock, milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
  /** Windows of calibrated P(good), for rules with `on: calibrated` (the calibration consumer's). */
  calibratedWindows?: ScoreWindows;
  /** The weakest cell of a metric, named in an alert's annotation (the weakness map's). */
  weakestCell?: (metric: string, judge: string) => string | undefined;
}

/** What `/api/status` reports about quality. */
export interface QualityStatus {
  windowMs: number;
  means: Array<{ metric: string; judge: string; service: string; mean: number | null; samples: number; threshold: number | null }>;
  alerts: ActiveAlert[];
  diagnosis: Array<{ component: string; text: string }>;
  examples: number;
}

/** The metrics consumer: a sink of the scorer for production records. */
export class ScoreMetrics implements RecordSink {
  readonly windows: ScoreWindows;
  readonly evaluator: AlertEvaluator;
  readonly examples: ExamplesBuffer;
  readonly rules: readonly MetricAlertRule[];
  /** Where the in-process alerts go (shared with the prober's). */
  readonly notifier: AlertNotifier;
  readonly #config: RagwatchConfig;
  readonly #instruments: Instruments;
  readonly #registry: MetricRegistry;
  readonly #verdicts: Counter<'metric' | 'judge' | 'label'>;
  #shutdown: Promise<void> | undefined;

  constructor(options: ScoreMetricsOptions) {
    const { config, instruments } = options;
    this.#config = config;
    this.#instruments = instruments;
    const registers = [instruments.registry];
    this.rules = alertRulesFromConfig(config.alerts);
    // Metrics as data on the Prometheus side: dashboards repeat their evaluator panels over these series.
    const registry = (this.#registry = metricRegistryOf(config));
    const info = new Gauge({ name: 'ragwatch_metric_info', help: 'Every metric this process knows (the metric registry: built-ins and configured evaluators), by metric, kind (score, boolean, categorical) and source (builtin, llm_evaluator, check_evaluator); always 1.', labelNames: ['metric', 'kind', 'source'], registers });
    for (const d of registry.list()) info.set({ metric: d.name, kind: d.kind, source: d.source }, 1);
    this.#verdicts = new Counter({ name: 'ragwatch_evaluator_verdicts_total', help: 'Verdicts of the configured boolean and categorical evaluators on production answers (unweighted), by metric, judge and label (pass / fail, or the categorical label).', labelNames: ['metric', 'judge', 'label'], registers });
    const windowMs = config.metrics.windowMs;
    this.windows = new ScoreWindows({ retentionMs: retentionMs(config), ...(options.now ? { now: options.now } : {}) });
    const windows = this.windows;
    const score = { windows, windowMs, registry: instruments.registry, labelNames: ['metric', 'judge', 'service'] as const };
    windowGauge({ ...score, name: 'ragwatch_score_mean_ratio', help: `Weighted mean score over the rolling window (metrics.windowMs = ${windowMs} ms), by metric, judge kind and service; absent when nothing was scored in the window.` });
    windowGauge({ ...score, name: 'ragwatch_score_window_samples', help: `Judged samples (unweighted) in the rolling window (metrics.windowMs = ${windowMs} ms), by metric, judge kind and service.`, value: (a) => a.samples });
    const threshold = new Gauge({ name: 'ragwatch_threshold_ratio', help: 'Configured alert/diagnosis threshold of each metric (alerts.metrics.<metric>.threshold).', labelNames: ['metric'], registers });
    for (const r of this.rules) threshold.set({ metric: r.metric }, r.threshold);
    const alertActive = new Gauge({ name: 'ragwatch_alert_active', help: 'In-process evaluator: 1 while a threshold alert of the metric is firing for some judge/service.', labelNames: ['metric', 'severity'], registers });
    const diagnosisActive = new Gauge({ name: 'ragwatch_diagnosis_active', help: "1 while THELMA's metric interplay on the windowed means points at the component.", labelNames: ['component'], registers });
    const notifier = (this.notifier = alertNotifier(config, instruments.registry));
    this.evaluator = new AlertEvaluator({
      rules: this.rules,
      windows,
      ...(options.calibratedWindows ? { calibratedWindows: options.calibratedWindows } : {}),
      diagnosisWindowMs: windowMs,
      alertActive,
      diagnosisActive,
      notifier,
      examplesUrl: examplesBaseUrl(config),
      intervalMs: config.alerts.evaluationIntervalMs,
      ...(options.weakestCell ? { weakestCell: options.weakestCell } : {}),
      ...(options.now ? { now: options.now } : {}),
    });
    this.examples = new ExamplesBuffer({ maxRecords: config.metrics.examplesMaxRecords, maxTextChars: config.metrics.examplesMaxTextChars, thresholds: this.thresholds() });
  }

  /** Each rule's threshold by metric. */
  thresholds(): Record<string, number> {
    return Object.fromEntries(this.rules.map((r) => [r.metric, r.threshold]));
  }

  /** The `service` label value a record counts under (bounded by `metrics.maxServices`). */
  serviceOf(record: ScoreRecord): string {
    return this.#instruments.score.boundLabels({ service: record.service }).service ?? 'other';
  }

  /** Starts the periodic evaluator when `alerts.evaluate` is on. */
  start(): void {
    if (this.#config.alerts.evaluate) this.evaluator.start();
  }

  /** Adds a production record to the windows and the examples. Never throws. */
  onRecord(record: ScoreRecord, triplet?: SampledTriplet): void {
    const service = this.serviceOf(record);
    for (const [metric, value] of Object.entries(record.scores)) {
      if (value === undefined) continue;
      this.windows.add({ metric, judge: record.judge.kind, service }, value, record.weight);
      const label = this.#labelOf(record, metric, value);
      if (label !== undefined) this.#verdicts.inc({ metric, judge: record.judge.kind, label });
    }
    this.examples.add(record, triplet);
  }

  /** An evaluator verdict's label: pass / fail for a boolean one, the label (as recorded, else by its value) for a categorical one. */
  #labelOf(record: ScoreRecord, metric: string, value: number): string | undefined {
    const d = this.#registry.get(metric);
    if (!d || d.source === 'builtin') return undefined;
    if (d.kind === 'boolean') return value >= 1 ? 'pass' : 'fail';
    if (d.kind !== 'categorical') return undefined;
    const said = record.details.evaluators?.[metric]?.label;
    return d.labels?.find((l) => l.label === said)?.label ?? d.labels?.find((l) => l.value === value)?.label;
  }

  /** Current means, alerts and diagnosis. */
  status(): QualityStatus {
    const windowMs = this.#config.metrics.windowMs;
    const thresholds = new Map(this.rules.map((r) => [r.metric, r.threshold]));
    return {
      windowMs,
      means: this.windows.aggregate(windowMs).map((a) => ({ metric: a.metric, judge: a.judge, service: a.service, mean: a.mean ?? null, samples: a.samples, threshold: thresholds.get(a.metric) ?? null })),
      alerts: this.evaluator.active(),
      diagnosis: this.evaluator.diagnoses().map((d) => ({ component: d.pattern.component, text: d.text })),
      examples: this.examples.size,
    };
  }

  /** Stops the evaluator and flushes notifications. Idempotent. */
  shutdown(): Promise<void> {
    return (this.#shutdown ??= this.evaluator.shutdown());
  }
}

/** How long score windows are kept: the longest of `metrics.windowMs` and every alert rule's window. */
export function retentionMs(config: RagwatchConfig): number {
  return Math.max(config.metrics.windowMs, ...alertRulesFromConfig(config.alerts).map((r) => r.windowMs));
}

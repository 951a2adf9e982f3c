/**
 * The quality side of the metrics: windowed means, threshold gauges, the in-process alert
 * evaluator with diagnosis and notifications, and the examples buffer — all fed by the scorer's
 * `onRecord` hook. One per process; registered on the pipeline's own registry.
 * @module
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { RagwatchConfig } from '../config/schema.ts';
import type { SampledTriplet, ScoreRecord } from '../triplet.ts';
import { CalibrationMonitor } from '../calibration/monitor.ts';
import { Refitter } from '../calibration/refit.ts';
import type { Logger } from '../log.ts';
import { loadCalibrationFile } from '../calibration/load-file.ts';
import { reviewItemOf } from '../store/create.ts';
import type { ReviewStore } from '../store/review-store.ts';
import type { LiveTopics } from '../weakness/live-topics.ts';
import { WeaknessMonitor, type WeaknessView } from '../weakness/monitor.ts';
import type { ExamMonitor } from '../exams/monitor.ts';
import { AlertEvaluator, alertRulesFromConfig, type ActiveAlert, type MetricAlertRule } from './evaluator.ts';
import { ExamplesBuffer } from './examples.ts';
import type { Instruments } from '../telemetry/instruments.ts';
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

/** Options of {@link QualityMonitor}; `config` and `instruments` are required. */
export interface QualityMonitorOptions {
  config: RagwatchConfig;
  instruments: Instruments;
  /** Clock, milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
  /** Keeps production answers for human review (the embedded store). */
  review?: ReviewStore;
  /** Logs refits. */
  logger?: Logger;
  /** The weakness map's cells are recomputed at most this often, milliseconds. Default 5000. */
  weaknessCacheMs?: number;
}

/** What `/api/status` reports about quality. */
export interface QualityStatus {
  windowMs: number;
  means: Array<{ metric: string; judge: string; service: string; mean: number | null; samples: number; threshold: number | null }>;
  alerts: ActiveAlert[];
  diagnosis: Array<{ component: string; text: string }>;
  examples: number;
}

export class QualityMonitor {
  readonly windows: ScoreWindows;
  readonly evaluator: AlertEvaluator;
  readonly examples: ExamplesBuffer;
  readonly rules: readonly MetricAlertRule[];
  /** Where the in-process alerts go (shared with the prober's). */
  readonly notifier: AlertNotifier;
  /** Calibrated means and review shares (`calibration.file`); absent without one. */
  readonly calibration: CalibrationMonitor | undefined;
  /** The live weakness map (question types, topics, cells and flags). */
  readonly weakness: WeaknessMonitor;
  /** Refits the calibration from the review store's labels; absent without a store. */
  readonly refitter: Refitter | undefined;
  /** The review store, when open. */
  readonly review: ReviewStore | undefined;
  /** The exam reports (`exams.files`), set by the role that serves them. */
  exams: ExamMonitor | undefined;
  readonly #config: RagwatchConfig;
  readonly #instruments: Instruments;
  readonly #now: () => number;
  #shutdown: Promise<void> | undefined;

  constructor(options: QualityMonitorOptions) {
    const { config, instruments } = options;
    this.#config = config;
    this.#instruments = instruments;
    this.review = options.review;
    this.#now = options.now ?? Date.now;
    const registers = [instruments.registry];
    this.rules = alertRulesFromConfig(config.alerts);
    const thresholds = Object.fromEntries(this.rules.map((r) => [r.metric, r.threshold]));
    const windowMs = config.metrics.windowMs;
    this.windows = new ScoreWindows({ retentionMs: Math.max(windowMs, ...this.rules.map((r) => r.windowMs)), ...(options.now ? { now: options.now } : {}) });
    const windows = this.windows;
    const score = { windows, windowMs, registry: instruments.registry, labelNames: ['metric', 'judge', 'service'] as const };
    windowGauge({ ...score, name: 'ragwatch_score_mean_ratio', help: `Weighted mean score over the rolling window (metrics.windowMs = ${windowMs} ms), by metric, judge kind and service; absent when nothing was scored in the window.` });
    windowGauge({ ...score, name: 'ragwatch_score_window_samples', help: `Judged samples (unweighted) in the rolling window (metrics.windowMs = ${windowMs} ms), by metric, judge kind and service.`, value: (a) => a.samples });
    const threshold = new Gauge({ name: 'ragwatch_threshold_ratio', help: 'Configured alert/diagnosis threshold of each metric (alerts.metrics.<metric>.threshold).', labelNames: ['metric'], registers });
    for (const r of this.rules) threshold.set({ metric: r.metric }, r.threshold);
    const alertActive = new Gauge({ name: 'ragwatch_alert_active', help: 'In-process evaluator: 1 while a threshold alert of the metric is firing for some judge/service.', labelNames: ['metric', 'severity'], registers });
    const diagnosisActive = new Gauge({ name: 'ragwatch_diagnosis_active', help: "1 while THELMA's metric interplay on the windowed means points at the component.", labelNames: ['component'], registers });
    const cal = config.calibration;
    const review = options.review;
    const retentionMs = Math.max(windowMs, ...this.rules.map((r) => r.windowMs));
    this.calibration =
      cal.file === undefined && !review
        ? undefined
        : new CalibrationMonitor({ models: cal.file === undefined ? [] : loadCalibrationFile(cal.file), registry: instruments.registry, windowMs, retentionMs, ...(options.now ? { now: options.now } : {}) });
    const { alerts } = config;
    this.weakness = new WeaknessMonitor({
      config,
      registry: instruments.registry,
      ...(review ? { store: review } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.now ? { now: options.now } : {}),
      ...(options.weaknessCacheMs !== undefined ? { cacheMs: options.weaknessCacheMs } : {}),
    });
    const notifier = (this.notifier = alertNotifier(config, instruments.registry));
    this.evaluator = new AlertEvaluator({
      rules: this.rules,
      windows,
      ...(this.calibration ? { calibratedWindows: this.calibration.windows } : {}),
      diagnosisWindowMs: windowMs,
      alertActive,
      diagnosisActive,
      notifier,
      examplesUrl: examplesBaseUrl(config),
      intervalMs: alerts.evaluationIntervalMs,
      weakestCell: (metric, judge) => this.weakness.worstCell(metric, judge),
      ...(options.now ? { now: options.now } : {}),
    });
    this.refitter =
      review && this.calibration
        ? new Refitter({ store: review, monitor: this.calibration, labelMetrics: cal.labelMetrics, thresholds, alpha: cal.alpha, minLabels: cal.minLabels, intervalMs: cal.refitIntervalMs, minNewLabels: cal.refitMinNewLabels, ...(options.logger ? { logger: options.logger } : {}) })
        : undefined;
    this.examples = new ExamplesBuffer({ maxRecords: config.metrics.examplesMaxRecords, maxTextChars: config.metrics.examplesMaxTextChars, thresholds });
  }

  /** Live question topics (`weakness.topics`). */
  get topics(): LiveTopics | undefined {
    return this.weakness.topics;
  }

  /** The configuration it was built from (read-only). */
  get settings(): Readonly<RagwatchConfig> {
    return this.#config;
  }

  /** Starts the periodic evaluator when `alerts.evaluate` is on. */
  start(): void {
    if (this.#config.alerts.evaluate) this.evaluator.start();
    this.refitter?.start();
    this.weakness.start();
  }

  /** The scorer's `onRecord` sink. Never throws. */
  readonly onRecord = (record: ScoreRecord, triplet?: SampledTriplet): void => {
    // Probe answers are evidence about the judges, not production quality: never in these windows, alerts or examples.
    if (record.origin === 'probe') {
      this.#instruments.probeRecords.inc();
      return;
    }
    const service = this.#instruments.score.boundLabels({ service: record.service }).service ?? 'other';
    for (const [metric, value] of Object.entries(record.scores)) {
      if (value !== undefined) this.windows.add({ metric, judge: record.judge.kind, service }, value, record.weight);
    }
    this.calibration?.observe(record, service);
    this.examples.add(record, triplet);
    if (triplet) this.weakness.observe(record, triplet);
    if (this.review && triplet) {
      const c = this.#config;
      const undecided = (metric: string, judge: string, score: number) => this.calibration?.setOf(metric, judge, score) === 'both';
      try {
        this.review.addItem(reviewItemOf(record, triplet, { labelMetrics: c.calibration.labelMetrics, maxTextChars: c.store.maxTextChars, undecided, now: this.#now() }));
      } catch {
        // A full disk must not stop scoring: the answer is just not offered for review.
        this.review.countError('add_item');
      }
    }
  };

  /** The weakness page's data over `metrics.windowMs`. */
  weaknessView(): WeaknessView {
    return this.weakness.view(Object.fromEntries(this.rules.map((r) => [r.metric, r.threshold])));
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

  /** Stops the evaluator, flushes notifications and closes the review store. Idempotent. */
  shutdown(): Promise<void> {
    return (this.#shutdown ??= (async () => {
      await this.evaluator.shutdown();
      await this.refitter?.shutdown();
      await this.weakness.shutdown();
      await this.review?.shutdown();
    })());
  }
}

/** The configuration as `/api/status` shows it: no secrets (tokens and keys only as set/unset). */
export function configSummary(config: RagwatchConfig): Record<string, unknown> {
  const { server, sampling, transport, judge, metrics, alerts } = config;
  return {
    server: { host: server.host, otlpPort: server.otlpPort, httpPort: server.httpPort, bearerToken: server.bearerToken ? 'set' : 'unset' },
    sampling: { rate: sampling.rate },
    transport: { kind: transport.kind },
    judge: { kind: judge.kind, model: judge.model, baseUrl: judge.baseUrl ? new URL(judge.baseUrl).origin : null, apiKey: judge.apiKey ? 'set' : 'unset' },
    metrics: { windowMs: metrics.windowMs, services: metrics.services, maxServices: metrics.maxServices },
    alerts: {
      evaluate: alerts.evaluate,
      alertmanager: alerts.alertmanager.url ? new URL(alerts.alertmanager.url).origin : null,
      webhook: alerts.webhook.url ? new URL(alerts.webhook.url).origin : null,
      metrics: alerts.metrics,
    },
  };
}

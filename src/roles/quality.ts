/**
 * The consumers of score records in a scoring process (`ragwatch start`, `ragwatch scorer`), wired
 * as sinks of the scorer: metrics and alerting, calibration, the weakness map and the review store —
 * each from its own room, none importing another. Probe records are counted and kept out of all of
 * them (evidence about the judges, not production quality). The server pages read what they hold.
 * @module
 */
import { CalibrationMonitor } from '../calibration/monitor.ts';
import { ChangeMonitor, type ChangeSeriesStatus } from '../change/monitor.ts';
import { changeRulesFromConfig } from '../change/rules.ts';
import { loadCalibrationFile } from '../calibration/load-file.ts';
import { Refitter } from '../calibration/refit.ts';
import type { LabelledAnswer } from '../calibration/labels.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import type { ExamMonitor } from '../exams/monitor.ts';
import type { FeedbackView } from '../feedback/types.ts';
import type { HistoryView } from '../history/types.ts';
import type { Logger } from '../log.ts';
import type { AlertEvaluator, MetricAlertRule } from '../metrics/evaluator.ts';
import type { ExamplesBuffer } from '../metrics/examples.ts';
import type { AlertNotifier } from '../metrics/notifier.ts';
import { requireDurationMs } from '../metrics/duration.ts';
import { examplesBaseUrl } from '../metrics/rules.ts';
import { ScoreMetrics, retentionMs, type QualityStatus } from '../metrics/score-metrics.ts';
import type { ScoreWindows } from '../metrics/score-windows.ts';
import { RecordSinks, type RecordSink } from '../scorer/record-sinks.ts';
import { SliceMonitor } from '../slices/monitor.ts';
import { sliceSettingsFromConfig } from '../slices/settings.ts';
import type { SliceStatus } from '../slices/types.ts';
import { SloMonitor, type SloAlert } from '../slo/monitor.ts';
import { sloRulesFromConfig } from '../slo/rules.ts';
import type { ReviewStore } from '../store/review-store.ts';
import { ReviewSink } from '../store/review-sink.ts';
import { ConversationMonitor } from '../conversations/monitor.ts';
import type { Instruments } from '../telemetry/instruments.ts';
import type { SampledTriplet, ScoreRecord } from '../triplet.ts';
import type { LiveTopics } from '../weakness/live-topics.ts';
import { WeaknessMonitor, type WeaknessView } from '../weakness/monitor.ts';

/** The label concept of end users' feedback in `calibration.labelMetrics` (a separate source: docs/feedback.md). */
const USER_FEEDBACK = 'user_feedback';

/** The users' labels as labelled answers of the concept `user_feedback` (one per answer, with each judge's scores). */
function userLabelledAnswers(feedback: FeedbackView | undefined): LabelledAnswer[] {
  const byAnswer = new Map<string, { label: 0 | 1; records: Map<string, Record<string, number>> }>();
  for (const p of feedback?.userPoints() ?? []) {
    const a = byAnswer.get(p.tripletId) ?? { label: p.label, records: new Map() };
    a.records.set(p.judge, { ...a.records.get(p.judge), [p.metric]: p.score });
    byAnswer.set(p.tripletId, a);
  }
  return [...byAnswer].map(([id, a]) => ({ id, labels: { [USER_FEEDBACK]: a.label }, records: [...a.records].map(([judge, scores]) => ({ tripletId: id, judge: { kind: judge }, scores }) as unknown as ScoreRecord) }));
}

/** What `/api/status` reports about quality: the metrics consumer's, and each change-alert series. */
export type QualityStatusWithChange = QualityStatus & { change: ChangeSeriesStatus[]; slo: SloAlert[]; slices: SliceStatus[] };

export type { QualityStatus };

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
  /**
   * Run the slice alerts and the release gate here (default true). False on a scorer replica of split
   * mode: each sees only its share of the records, so the `ragwatch slices` role runs them once over all.
   */
  slices?: boolean;
}

/** The production consumers of one scoring process, and what the pages read of them. */
export class QualityMonitor implements RecordSink {
  /** Windowed means, threshold alerts, diagnosis and examples. */
  readonly scores: ScoreMetrics;
  /** Calibrated means and review shares (`calibration.file`, or fitted from the store's labels); absent without either. */
  readonly calibration: CalibrationMonitor | undefined;
  /** The live weakness map (question types, topics, cells and flags). */
  readonly weakness: WeaknessMonitor;
  /** Change alerts against each series' own baseline (alerts.change). */
  readonly change: ChangeMonitor;
  /** Quality SLOs: burn-rate alerts and error budgets (alerts.metrics.<metric>.slo). */
  readonly slo: SloMonitor;
  /** Slice alerts and the live release gate (alerts.slices, alerts.releases); absent on a split-mode scorer. */
  readonly slices: SliceMonitor | undefined;
  /** Refits the calibration from the review store's labels; absent without a store. */
  readonly refitter: Refitter | undefined;
  /** The review store, when open. */
  readonly review: ReviewStore | undefined;
  /** The exam reports (`exams.files`), set by the role that serves them. */
  exams: ExamMonitor | undefined;
  /** End users' feedback and its join with the verdicts (`feedback`), set by the role that keeps it. */
  feedback: FeedbackView | undefined;
  /** Quality over time, set by the role that keeps it (the one that sees every score record). */
  history: HistoryView | undefined;
  readonly #config: RagwatchConfig;
  readonly #instruments: Instruments;
  readonly #sinks: RecordSinks;
  #shutdown: Promise<void> | undefined;

  constructor(options: QualityMonitorOptions) {
    const { config, instruments, review } = options;
    this.#config = config;
    this.#instruments = instruments;
    this.review = review;
    const now = options.now ? { now: options.now } : {};
    const logger = options.logger ? { logger: options.logger } : {};
    const cal = config.calibration;
    const windowMs = config.metrics.windowMs;
    this.calibration =
      cal.file === undefined && !review
        ? undefined
        : new CalibrationMonitor({ models: cal.file === undefined ? [] : loadCalibrationFile(cal.file), registry: instruments.registry, windowMs, retentionMs: retentionMs(config), ...now });
    this.weakness = new WeaknessMonitor({ config, registry: instruments.registry, ...(review ? { store: review } : {}), ...logger, ...now, ...(options.weaknessCacheMs !== undefined ? { cacheMs: options.weaknessCacheMs } : {}) });
    const calibration = this.calibration;
    this.scores = new ScoreMetrics({ config, instruments, ...now, ...(calibration ? { calibratedWindows: calibration.windows } : {}), weakestCell: (metric, judge) => this.weakness.worstCell(metric, judge) });
    this.refitter =
      review && calibration
        ? new Refitter({ store: review, monitor: calibration, labelMetrics: cal.labelMetrics, thresholds: this.scores.thresholds(), alpha: cal.alpha, minLabels: cal.minLabels, intervalMs: cal.refitIntervalMs, minNewLabels: cal.refitMinNewLabels, ...logger, ...(cal.labelMetrics[USER_FEEDBACK] ? { userAnswers: () => userLabelledAnswers(this.feedback) } : {}) })
        : undefined;
    const change = changeRulesFromConfig(config.alerts);
    this.change = new ChangeMonitor({
      ...change,
      registry: instruments.registry,
      notifier: this.scores.notifier,
      serviceOf: (record) => this.scores.serviceOf(record),
      intervalMs: config.alerts.evaluationIntervalMs,
      examplesUrl: examplesBaseUrl(config),
      movedCell: (metric, judge, cut, baseline) => this.weakness.risenCell(metric, judge, cut, baseline),
      ...(calibration ? { probability: (metric: string, judge: string, score: number) => calibration.probability(metric, judge, score) } : {}),
      ...(review ? { store: review } : {}),
      ...now,
      ...logger,
    });
    this.slo = new SloMonitor({
      rules: sloRulesFromConfig(config.alerts),
      registry: instruments.registry,
      notifier: this.scores.notifier,
      serviceOf: (record) => this.scores.serviceOf(record),
      intervalMs: config.alerts.evaluationIntervalMs,
      keepFiringForMs: requireDurationMs(config.alerts.keepFiringFor),
      examplesUrl: examplesBaseUrl(config),
      ...now,
    });
    this.slices =
      options.slices === false
        ? undefined
        : new SliceMonitor({
            ...sliceSettingsFromConfig(config.alerts),
            registry: instruments.registry,
            notifier: this.scores.notifier,
            serviceOf: (record) => this.scores.serviceOf(record),
            intervalMs: config.alerts.evaluationIntervalMs,
            examplesUrl: examplesBaseUrl(config),
            ...(calibration ? { probability: (metric: string, judge: string, score: number) => calibration.probability(metric, judge, score) } : {}),
            ...(review ? { store: review } : {}),
            ...now,
            ...logger,
          });
    // One line per consumer: the next capability registers here, in its own room's sink.
    this.#sinks = new RecordSinks([this.scores, this.weakness, this.change, this.slo]);
    if (this.slices) this.#sinks.add(this.slices);
    this.#sinks.add(new ConversationMonitor({ registry: instruments.registry, thresholds: this.scores.thresholds(), windowMs: config.metrics.windowMs, serviceOf: (record) => this.scores.serviceOf(record), ...now }));
    if (calibration) this.#sinks.add({ onRecord: (record) => calibration.observe(record, this.scores.serviceOf(record)) });
    if (review) {
      const undecided = (metric: string, judge: string, score: number) => calibration?.setOf(metric, judge, score) === 'both';
      this.#sinks.add(new ReviewSink({ store: review, labelMetrics: cal.labelMetrics, maxTextChars: config.store.maxTextChars, maxItemsPerSecond: config.store.maxReviewItemsPerSecond, undecided, ...now }));
    }
  }

  /** Score windows of the production records. */
  get windows(): ScoreWindows {
    return this.scores.windows;
  }

  /** The in-process alert evaluator. */
  get evaluator(): AlertEvaluator {
    return this.scores.evaluator;
  }

  /** The examples buffer (worst recent answers). */
  get examples(): ExamplesBuffer {
    return this.scores.examples;
  }

  /** The threshold alert rules of the configuration. */
  get rules(): readonly MetricAlertRule[] {
    return this.scores.rules;
  }

  /** Where the in-process alerts go (shared with the prober's). */
  get notifier(): AlertNotifier {
    return this.scores.notifier;
  }

  /** Live question topics (`weakness.topics`). */
  get topics(): LiveTopics | undefined {
    return this.weakness.topics;
  }

  /** The configuration it was built from (read-only). */
  get settings(): Readonly<RagwatchConfig> {
    return this.#config;
  }

  /** Starts the periodic evaluator (when `alerts.evaluate` is on), the refits and the topic batches. */
  start(): void {
    this.scores.start();
    if (this.#config.alerts.evaluate) {
      this.change.start();
      this.slo.start();
      this.slices?.start();
    }
    this.refitter?.start();
    this.weakness.start();
  }

  /** The scorer's sink. Never throws. */
  readonly onRecord = (record: ScoreRecord, triplet?: SampledTriplet): void => {
    // Probe answers are evidence about the judges, not production quality: never in these windows, alerts or examples.
    if (record.origin === 'probe') {
      this.#instruments.probeRecords.inc();
      return;
    }
    this.#sinks.onRecord(record, triplet);
  };

  /** The weakness page's data over `metrics.windowMs`. */
  weaknessView(): WeaknessView {
    return this.weakness.view(this.scores.thresholds());
  }

  /** Current means, alerts, diagnosis and the change-alert series (`no_baseline`, `ok`, `firing`). */
  status(): QualityStatusWithChange {
    return { ...this.scores.status(), change: this.change.status(), slo: this.slo.active(), slices: this.slices?.status().filter((s) => s.state === 'firing') ?? [] };
  }

  /** Stops the evaluator, flushes notifications and closes the review store. Idempotent. */
  shutdown(): Promise<void> {
    return (this.#shutdown ??= (async () => {
      await this.scores.shutdown();
      await this.change.shutdown();
      await this.slo.shutdown();
      await this.slices?.shutdown();
      await this.refitter?.shutdown();
      await this.weakness.shutdown();
      await this.review?.shutdown();
    })());
  }
}

/**
 * Applies a saved calibration to the live scores (`calibration.file`): per metric, judge and service
 * the sampling-weighted mean of P(a human says good), and per metric and judge the share of answers
 * whose conformal prediction set is {good, bad} — the judge cannot tell, a person should look. Fed by
 * the quality monitor's `onRecord`; a score without a calibration for its (metric, judge) is skipped
 * (no series), never guessed.
 * @module
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { ScoreWindows, windowGauge } from '../metrics/score-windows.ts';
import type { ScoreRecord } from '../triplet.ts';
import { predictionSet } from './conformal.ts';
import { applyMap } from './fit.ts';
import type { CalibrationModel } from './types.ts';

/** Options of {@link CalibrationMonitor}. */
export interface CalibrationMonitorOptions {
  models: readonly CalibrationModel[];
  registry: Registry;
  /** Rolling window of the calibrated means and review shares, milliseconds. */
  windowMs: number;
  /** History kept for the alerts `on: calibrated` (their longest window), milliseconds. Default `windowMs`. */
  retentionMs?: number;
  now?: () => number;
}

export class CalibrationMonitor {
  #models = new Map<string, CalibrationModel>();
  readonly #means: ScoreWindows;
  readonly #review: ScoreWindows;
  readonly #labels: Gauge<'metric' | 'judge'>;
  readonly #sum: Counter<'metric' | 'judge' | 'service'>;
  readonly #count: Counter<'metric' | 'judge' | 'service'>;
  readonly #brier: Gauge<'metric' | 'judge'>;

  constructor(options: CalibrationMonitorOptions) {
    const clock = options.now ? { now: options.now } : {};
    this.#means = new ScoreWindows({ retentionMs: options.retentionMs ?? options.windowMs, ...clock });
    this.#review = new ScoreWindows({ retentionMs: options.windowMs, ...clock });
    const { windowMs } = options;
    const means = this.#means;
    const review = this.#review;
    const registers = [options.registry];
    windowGauge({ name: 'ragwatch_score_calibrated_mean_ratio', help: `Calibrated score: weighted mean of P(a human says good) over metrics.windowMs (${windowMs} ms), by metric, judge and service; absent without a calibration for the metric and judge.`, windows: means, windowMs, registry: options.registry, labelNames: ['metric', 'judge', 'service'] });
    windowGauge({ name: 'ragwatch_needs_review_ratio', help: `Share of scored answers whose conformal prediction set is {good, bad} (the judge cannot tell) over metrics.windowMs (${windowMs} ms), by metric and judge.`, windows: review, windowMs, registry: options.registry, labelNames: ['metric', 'judge'] });
    // Sum and count of weighted P(good), like the score histogram's: the generated rules take rates over any window.
    this.#sum = new Counter({ name: 'ragwatch_score_calibrated_ratio_sum', help: 'Sum of sampling-weighted calibrated P(a human says good), by metric, judge and service (rate / the _count rate = the calibrated mean over a window).', labelNames: ['metric', 'judge', 'service'], registers });
    this.#count = new Counter({ name: 'ragwatch_score_calibrated_ratio_count', help: 'Sum of the sampling weights of calibrated scores, by metric, judge and service.', labelNames: ['metric', 'judge', 'service'], registers });
    this.#labels = new Gauge({ name: 'ragwatch_calibration_labels', help: 'Human labels the calibration in use was fitted on, by metric and judge.', labelNames: ['metric', 'judge'], registers });
    this.#brier = new Gauge({ name: 'ragwatch_calibration_brier', help: 'Brier score of the calibration in use on its held-out labels, by metric and judge (absent when the test part was empty).', labelNames: ['metric', 'judge'], registers });
    const models = () => [...this.#models.values()];
    const now = options.now ?? Date.now;
    new Gauge({
      name: 'ragwatch_calibration_age_seconds',
      help: 'Age of the loaded calibration (since its fit), by metric and judge.',
      labelNames: ['metric', 'judge'],
      registers,
      collect() {
        this.reset();
        for (const m of models()) this.set({ metric: m.metric, judge: m.judge }, (now() - Date.parse(m.fittedAt)) / 1000);
      },
    });
    this.setModels(options.models);
  }

  /** Replaces the calibrations in use (a refit, or those saved in the store at start). */
  setModels(models: readonly CalibrationModel[]): void {
    this.#models = new Map(models.map((m) => [`${m.metric}\u0000${m.judge}`, m]));
    this.#labels.reset();
    this.#brier.reset();
    for (const m of models) {
      this.#labels.set({ metric: m.metric, judge: m.judge }, m.n);
      if (m.brier !== null) this.#brier.set({ metric: m.metric, judge: m.judge }, m.brier);
    }
  }

  /** The calibrations in use. */
  models(): CalibrationModel[] {
    return [...this.#models.values()];
  }

  /** The calibrated P(good) windows (the evaluator's alerts `on: calibrated`). */
  get windows(): ScoreWindows {
    return this.#means;
  }

  /** Number of (metric, judge) calibrations loaded. */
  get size(): number {
    return this.#models.size;
  }

  /** The calibrated P(a human says good) of a score, or undefined without a calibration for (metric, judge). */
  probability(metric: string, judge: string, score: number): number | undefined {
    const model = this.#models.get(`${metric}\u0000${judge}`);
    return model ? applyMap(model.map, score) : undefined;
  }

  /** The prediction set of a score, or undefined without a calibration for (metric, judge). */
  setOf(metric: string, judge: string, score: number): ReturnType<typeof predictionSet> | undefined {
    const model = this.#models.get(`${metric}\u0000${judge}`);
    return model ? predictionSet(model.conformal, applyMap(model.map, score)) : undefined;
  }

  /** Adds a production record's calibrated scores. Never throws. */
  observe(record: ScoreRecord, service: string): void {
    for (const [metric, score] of Object.entries(record.scores)) {
      if (score === undefined) continue;
      const model = this.#models.get(`${metric}\u0000${record.judge.kind}`);
      if (!model) continue;
      const p = applyMap(model.map, score);
      const labels = { metric, judge: record.judge.kind, service };
      this.#means.add(labels, p, record.weight);
      this.#sum.inc(labels, p * record.weight);
      this.#count.inc(labels, record.weight);
      this.#review.add({ metric, judge: record.judge.kind, service: 'all' }, predictionSet(model.conformal, p) === 'both' ? 1 : 0, record.weight);
    }
  }
}

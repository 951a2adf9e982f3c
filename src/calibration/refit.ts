/**
 * Online calibration: every `calibration.refitIntervalMs` the labels in the review store are joined to
 * the scores of their answers and refitted on a worker thread when at least
 * `calibration.refitMinNewLabels` labels arrived since the last fit; the new calibrations replace the
 * ones in use and are saved in the store, so a restart uses them at once. A fit that fails is logged
 * and the previous calibration stays.
 * @module
 */
import type { Worker } from 'node:worker_threads';
import { errorMessage } from '../errors.ts';
import { silentLogger, type Logger } from '../log.ts';
import type { ReviewStore } from '../store/review-store.ts';
import { siblingScript, startWorker } from '../threads.ts';
import type { ScoreRecord } from '../triplet.ts';
import type { FitRequest, FitResponse } from './fit-worker.ts';
import { labelledPoints, type LabelledAnswer } from './labels.ts';
import type { CalibrationMonitor } from './monitor.ts';
import type { CalibrationModel, LabelledScore } from './types.ts';

const WORKER_URL = siblingScript(import.meta.url, 'fit-worker');

/** Options of {@link Refitter}. */
export interface RefitterOptions {
  store: ReviewStore;
  monitor: CalibrationMonitor;
  labelMetrics: Readonly<Record<string, readonly string[]>>;
  /** Alert threshold per metric (κ in the fit's report). */
  thresholds: Readonly<Record<string, number>>;
  alpha: number;
  minLabels: number;
  intervalMs: number;
  minNewLabels: number;
  logger?: Logger;
  /**
   * A second, separate label source: end users' feedback as answers labelled on its own concept
   * (`user_feedback`), fitted into calibrations of their own (`labelMetric: user_feedback`), never pooled
   * with the reviewers' labels (the configuration keeps the concepts' metrics apart). Default none.
   */
  userAnswers?: () => LabelledAnswer[];
}

export class Refitter {
  readonly #o: RefitterOptions;
  #timer: NodeJS.Timeout | undefined;
  #worker: Worker | undefined;
  #fitted = -1;
  #running: Promise<CalibrationModel[] | undefined> | undefined;
  #stopped = false;
  #nextId = 0;

  constructor(options: RefitterOptions) {
    this.#o = options;
    // A restart starts from the last saved fit; labels that arrived meanwhile trigger the next one.
    const saved = options.store.calibrations<CalibrationModel>();
    if (saved.length > 0) options.monitor.setModels(merge(options.monitor.models(), saved));
  }

  /** Starts the periodic refit (unref'd timer). Idempotent. */
  start(): void {
    if (this.#timer || this.#stopped) return;
    this.#timer = setInterval(() => void this.refit(), this.#o.intervalMs);
    this.#timer.unref();
  }

  /** The labelled answers of the store with their stored scores. */
  #answers(users = true): LabelledAnswer[] {
    const byId = new Map<string, Record<string, 0 | 1>>();
    for (const l of this.#o.store.labels()) byId.set(l.tripletId, { ...byId.get(l.tripletId), [l.metric]: l.value });
    const out: LabelledAnswer[] = [];
    for (const [id, labels] of byId) {
      const item = this.#o.store.item(id);
      if (!item) continue;
      const record = { tripletId: id, judge: { kind: item.judge }, scores: item.scores } as unknown as ScoreRecord;
      out.push({ id, labels, records: [record] });
    }
    return users && this.#o.userAnswers ? [...out, ...this.#o.userAnswers()] : out;
  }

  /** The labelled points of one (metric, judge) held in the store now (for the reliability diagram). */
  points(metric: string, judge: string): LabelledScore[] {
    return labelledPoints(this.#answers(), this.#o.labelMetrics).get(`${metric}\u0000${judge}`)?.points ?? [];
  }

  /** The reviewers' labelled points of every (metric, judge), by `metric\u0000judge` (the agreement table: one read of the store; users' feedback apart). */
  allPoints(): Map<string, LabelledScore[]> {
    return new Map([...labelledPoints(this.#answers(false), this.#o.labelMetrics)].map(([k, g]) => [k, g.points]));
  }

  /** Refits now when enough new labels arrived (or `force`); resolves with the models in use after it. */
  refit(force = false): Promise<CalibrationModel[] | undefined> {
    if (this.#running) return this.#running;
    const count = this.#o.store.labelCount() + (this.#o.userAnswers?.().length ?? 0);
    if (!force && this.#fitted >= 0 && count - this.#fitted < this.#o.minNewLabels) return Promise.resolve(undefined);
    if (!force && this.#fitted < 0 && count < this.#o.minLabels) return Promise.resolve(undefined);
    this.#running = this.#fit(count).finally(() => (this.#running = undefined));
    return this.#running;
  }

  async #fit(count: number): Promise<CalibrationModel[] | undefined> {
    const logger = this.#o.logger ?? silentLogger;
    try {
      const groups = [...labelledPoints(this.#answers(), this.#o.labelMetrics).values()].map((g) => ({ ...g, ...(this.#o.thresholds[g.metric] !== undefined ? { threshold: this.#o.thresholds[g.metric]! } : {}) }));
      const res = await this.#ask({ id: this.#nextId++, groups, options: { alpha: this.#o.alpha, minLabels: this.#o.minLabels } });
      this.#fitted = count;
      if (this.#stopped) return undefined;
      // Metrics that could not be refitted keep their previous calibration.
      const models = merge(this.#o.monitor.models(), res.models);
      this.#o.monitor.setModels(models);
      this.#o.store.saveCalibrations(res.models);
      logger.info({ labels: count, fitted: res.models.map((m) => `${m.metric}/${m.judge}:${m.map.method}`), skipped: res.skipped }, 'calibration refitted');
      return models;
    } catch (err) {
      logger.error({ err: errorMessage(err) }, 'calibration refit failed; the previous calibration stays');
      return undefined;
    }
  }

  #ask(req: FitRequest): Promise<FitResponse> {
    this.#worker ??= startWorker(WORKER_URL);
    const worker = this.#worker;
    worker.unref();
    return new Promise((resolve, reject) => {
      const onMessage = (res: FitResponse) => {
        if (res.id !== req.id) return;
        cleanup();
        resolve(res);
      };
      const onError = (err: Error) => {
        cleanup();
        this.#worker = undefined;
        reject(err);
      };
      const onExit = () => onError(new Error('the calibration worker exited'));
      const cleanup = () => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.postMessage(req);
    });
  }

  /** Stops the timer and the worker (a fit in flight is abandoned). Idempotent. */
  async shutdown(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#worker?.terminate();
    this.#worker = undefined;
  }
}

/** `base` with every (metric, judge) of `newer` replaced or added. */
function merge(base: readonly CalibrationModel[], newer: readonly CalibrationModel[]): CalibrationModel[] {
  return [...base.filter((m) => !newer.some((n) => n.metric === m.metric && n.judge === m.judge)), ...newer];
}

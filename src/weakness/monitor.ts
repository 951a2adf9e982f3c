/**
 * The weakness map of a scoring role: each scored production answer gets its question type at once
 * and its topic off the scoring path ({@link LiveTopics}), then lands in the live map
 * ({@link LiveWeaknessMap}) that exports the breakdowns and names the worst flagged cell of an alerting
 * metric. In split mode the topic model is shared through Kafka ({@link TopicModelBus}).
 * @module
 */
import type { Registry } from 'prom-client';
import type { RagwatchConfig } from '../config/schema.ts';
import { sharedEmbedder } from '../judges/embedded/cached-embedder.ts';
import type { Logger } from '../log.ts';
import type { RecordSink } from '../scorer/record-sinks.ts';
import type { ReviewStore } from '../store/review-store.ts';
import { queryInContext, type SampledTriplet, type ScoreRecord } from '../triplet.ts';
import { describeCell, type MetricCell, type ScoredAnswer } from './cells.ts';
import { LiveWeaknessMap } from './live-map.ts';
import { LiveTopics } from './live-topics.ts';
import { queryType } from './query-type.ts';
import { risenCell } from './risen-cell.ts';
import type { TopicModel } from './topics.ts';

/** Options of {@link WeaknessMonitor}. */
export interface WeaknessMonitorOptions {
  config: RagwatchConfig;
  registry: Registry;
  store?: ReviewStore;
  logger?: Logger;
  now?: () => number;
  /** Cells are recomputed at most this often, milliseconds. Default 5000. */
  cacheMs?: number;
}

/** What the `/weaknesses` page shows. */
export interface WeaknessView {
  windowMs: number;
  thresholds: Readonly<Record<string, number>>;
  /** Topic ids → names; empty during the warm-up. */
  topics: ReadonlyArray<{ id: string; label: string }>;
  cells: readonly MetricCell[];
  /** The answers of the window (for the distributions per topic). */
  answers: readonly ScoredAnswer[];
  bivariateMetrics: readonly string[];
  minCount: number;
}

export class WeaknessMonitor implements RecordSink {
  readonly map: LiveWeaknessMap;
  /** Live question topics (`weakness.topics`). */
  readonly topics: LiveTopics | undefined;
  readonly #config: RagwatchConfig;
  #publish: ((model: TopicModel) => void) | undefined;

  constructor(options: WeaknessMonitorOptions) {
    const { config, registry } = options;
    const w = config.weakness;
    this.#config = config;
    const now = options.now ? { now: options.now } : {};
    this.map = new LiveWeaknessMap({ registry, windowMs: config.metrics.windowMs, maxAnswers: w.maxAnswers, bivariateMetrics: w.bivariateMetrics, minCount: w.minCount, fdr: w.fdr, ...(options.cacheMs !== undefined ? { cacheMs: options.cacheMs } : {}), ...now });
    this.topics = w.topics
      ? new LiveTopics({
          embedder: () => sharedEmbedder(config.judge.embedded.threads),
          registry,
          topicCount: w.topicCount,
          warmupQueries: w.warmupQueries,
          maxPending: w.maxPending,
          driftOtherShare: w.driftOtherShare,
          publish: (m) => this.#publish?.(m),
          ...(options.store ? { store: options.store } : {}),
          ...(options.logger ? { logger: options.logger } : {}),
          ...now,
        })
      : undefined;
  }

  /** Where models fitted here are shared (the topic-models topic in split mode). */
  set publish(fn: ((model: TopicModel) => void) | undefined) {
    this.#publish = fn;
  }

  /** A scored production answer (ignored without its triplet). Never throws, never waits. */
  onRecord(record: ScoreRecord, triplet?: SampledTriplet): void {
    if (!triplet) return;
    const dims: Record<string, string> = { queryType: queryType(triplet.query) };
    if (triplet.route !== undefined) dims.route = triplet.route;
    if (triplet.model !== undefined) dims.model = triplet.model;
    if (triplet.release !== undefined) dims.release = triplet.release;
    const answer = { tripletId: record.tripletId, judge: record.judge.kind, weight: record.weight, scores: record.scores, dims };
    if (!this.topics) {
      this.map.add(answer);
      return;
    }
    // A follow-up's topic is its conversation's: the previous user message comes with it (queryInContext).
    this.topics.observe(queryInContext(triplet), (topic) => {
      if (topic !== undefined) dims.topic = topic;
      this.map.add(answer);
    });
  }

  /**
   * For a change alert: the cell of the live window (release, model, route, topic, question type) whose
   * share of answers at or below `cut` stands highest above the series' `baseline` share.
   */
  risenCell(metric: string, judge: string, cut: number, baseline: number): string | undefined {
    return risenCell(this.map.answers(), metric, judge, cut, baseline, this.#config.weakness.minCount, (dimension, value) => (dimension === 'topic' ? (this.topics?.label(value) ?? value) : value));
  }

  /** One line naming the worst flagged cell of `metric` (and `judge`), for alert annotations; undefined when none is flagged. */
  worstCell(metric: string, judge?: string): string | undefined {
    const cell = this.map.worst(metric, judge);
    return cell && describeCell(cell, (id) => this.topics?.label(id));
  }

  /** The page's data. */
  view(thresholds: Readonly<Record<string, number>>): WeaknessView {
    const w = this.#config.weakness;
    return {
      windowMs: this.#config.metrics.windowMs,
      thresholds,
      topics: [...(this.topics?.model?.labels.map((label, i) => ({ id: `t${i}`, label })) ?? []), ...(this.topics?.model?.otherBelow !== undefined ? [{ id: 'other', label: 'other (fits no topic)' }] : [])],
      cells: this.map.cells(),
      answers: this.map.answers(),
      bivariateMetrics: w.bivariateMetrics,
      minCount: w.minCount,
    };
  }

  /** Starts the topic batches. */
  start(): void {
    this.topics?.start();
  }

  /** Assigns what is queued. */
  async forceFlush(): Promise<void> {
    await this.topics?.flush();
  }

  /** Stops the topic batches. Idempotent. */
  async shutdown(): Promise<void> {
    await this.topics?.shutdown();
  }
}

/**
 * Live question topics (docs/weaknesses.md): the scoring role collects the first
 * `weakness.warmupQueries` questions, fits the topics once (spherical k-means on the bundled model's
 * embeddings, c-TF-IDF names), keeps the model in the review store so a restart reuses it with the same
 * ids, and from then on assigns each scored answer to its nearest topic — off the scoring path: answers
 * wait in a bounded queue (overflow counted) and are embedded in batches on a timer. Every metric's
 * weighted mean per topic is exported (at most metrics × judges × topicCount series).
 * @module
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { errorMessage } from '../errors.ts';
import type { SentenceEmbedder } from '../judges/types.ts';
import { silentLogger, type Logger } from '../log.ts';
import { ScoreWindows } from '../metrics/score-windows.ts';
import type { ReviewStore } from '../store/review-store.ts';
import type { ScoreRecord } from '../triplet.ts';
import { fitTopics, nearest, type TopicModel } from './topics.ts';

/** Options of {@link LiveTopics}. */
export interface LiveTopicsOptions {
  embedder: () => Promise<SentenceEmbedder>;
  registry: Registry;
  windowMs: number;
  topicCount: number;
  warmupQueries: number;
  maxPending: number;
  store?: ReviewStore;
  /** Batch interval, milliseconds. Default 1000. */
  intervalMs?: number;
  logger?: Logger;
  now?: () => number;
}

const MODEL_NAME = 'topics.v1';

export class LiveTopics {
  readonly #o: LiveTopicsOptions;
  readonly #windows: ScoreWindows;
  readonly #pending: Array<{ record: ScoreRecord; service: string; query: string }> = [];
  readonly #warmup: string[] = [];
  readonly #dropped: Counter;
  readonly #info: Gauge<'topic' | 'label'>;
  #model: TopicModel | undefined;
  #timer: NodeJS.Timeout | undefined;
  #busy: Promise<void> | undefined;
  #stopped = false;

  constructor(options: LiveTopicsOptions) {
    this.#o = options;
    this.#windows = new ScoreWindows({ retentionMs: options.windowMs, ...(options.now ? { now: options.now } : {}) });
    const registers = [options.registry];
    const windows = this.#windows;
    const { windowMs } = options;
    new Gauge({
      name: 'ragwatch_score_by_topic_mean_ratio',
      help: `Weighted mean score over metrics.windowMs (${windowMs} ms) by metric, judge and question topic (t0…; names in ragwatch_topic_info); absent until the topics are fitted.`,
      labelNames: ['metric', 'judge', 'topic'],
      registers,
      collect() {
        this.reset();
        for (const a of windows.aggregate(windowMs)) if (a.mean !== undefined) this.set({ metric: a.metric, judge: a.judge, topic: a.service }, a.mean);
      },
    });
    this.#info = new Gauge({ name: 'ragwatch_topic_info', help: 'The question topics in use: 1 per topic id with its name (its most distinctive words).', labelNames: ['topic', 'label'], registers });
    this.#dropped = new Counter({ name: 'ragwatch_topic_dropped_total', help: 'Scored answers left out of the topic breakdown because the embedding queue was full (weakness.maxPending).', registers });
    const saved = options.store?.model<TopicModel>(MODEL_NAME);
    if (saved) this.#use(saved);
  }

  /** Per-topic aggregates over `windowMs` (the topic id in the `service` field). */
  aggregate(windowMs: number): ReturnType<ScoreWindows['aggregate']> {
    return this.#windows.aggregate(windowMs);
  }

  /** The topic model in use (undefined during the warm-up). */
  get model(): TopicModel | undefined {
    return this.#model;
  }

  #use(model: TopicModel): void {
    this.#model = model;
    this.#info.reset();
    model.labels.forEach((label, i) => this.#info.set({ topic: `t${i}`, label }, 1));
  }

  /** Queues a scored production answer. Never throws, never blocks. */
  observe(record: ScoreRecord, service: string, query: string): void {
    if (this.#stopped) return;
    if (this.#pending.length >= this.#o.maxPending) {
      this.#dropped.inc();
      return;
    }
    this.#pending.push({ record, service, query });
  }

  /** Starts the batch timer (unref'd). Idempotent. */
  start(): void {
    if (this.#timer || this.#stopped) return;
    this.#timer = setInterval(() => void this.flush(), this.#o.intervalMs ?? 1_000);
    this.#timer.unref();
  }

  /** Embeds and assigns what is queued (fitting the topics once the warm-up is full). */
  flush(): Promise<void> {
    this.#busy ??= this.#batch().finally(() => (this.#busy = undefined));
    return this.#busy;
  }

  async #batch(): Promise<void> {
    const batch = this.#pending.splice(0, this.#pending.length);
    if (batch.length === 0) return;
    try {
      if (!this.#model) {
        const seen = new Set(this.#warmup);
        for (const b of batch) {
          if (this.#warmup.length >= this.#o.warmupQueries || seen.has(b.query)) continue;
          seen.add(b.query);
          this.#warmup.push(b.query);
        }
        if (this.#warmup.length < this.#o.warmupQueries) return;
        const embedder = await this.#o.embedder();
        const { model } = fitTopics(this.#warmup, await embedder.embed(this.#warmup), this.#o.topicCount);
        this.#use(model);
        this.#o.store?.saveModel(MODEL_NAME, model);
        this.#warmup.length = 0;
        (this.#o.logger ?? silentLogger).info({ topics: model.labels.map((l, i) => `t${i} ${l}`) }, 'question topics fitted');
        // The warm-up's own answers are not counted (their batch is gone): the breakdown starts now.
        return;
      }
      const model = this.#model;
      const queries = [...new Set(batch.map((b) => b.query))];
      const vectors = await (await this.#o.embedder()).embed(queries);
      const topicOf = new Map(queries.map((q, i) => [q, `t${nearest(model.centroids, vectors[i]!)}`]));
      for (const b of batch) {
        for (const [metric, value] of Object.entries(b.record.scores)) {
          if (value !== undefined) this.#windows.add({ metric, judge: b.record.judge.kind, service: topicOf.get(b.query)! }, value, b.record.weight);
        }
      }
    } catch (err) {
      this.#dropped.inc(batch.length);
      (this.#o.logger ?? silentLogger).warn({ err: errorMessage(err), answers: batch.length }, 'topic assignment failed; answers left out of the topic breakdown');
    }
  }

  /** Stops the timer and finishes the batch in flight. Idempotent. */
  async shutdown(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#busy;
  }

  /** Assigns what is queued now. */
  forceFlush(): Promise<void> {
    return this.flush();
  }
}

/**
 * Live question topics (docs/weaknesses.md): the scoring role collects the first
 * `weakness.warmupQueries` distinct questions, fits the topics on a worker thread (spherical k-means on
 * the bundled model's embeddings, c-TF-IDF names), keeps the model in the review store so a restart
 * reuses it with the same ids, shares it with the other replicas ({@link TopicModelBus}), and from then
 * on assigns each scored answer to its nearest topic — off the scoring path: questions wait in a
 * bounded queue (overflow counted) and are embedded in batches on a timer. When the share of questions
 * that fit no topic (`other`) over the last warm-up's worth passes `weakness.driftOtherShare`, it
 * re-clusters on those recent questions, keeping the ids of clusters that persisted.
 * @module
 */
import { randomUUID } from 'node:crypto';
import { Counter, Gauge, type Registry } from 'prom-client';
import { errorMessage } from '../errors.ts';
import type { SentenceEmbedder } from '../judges/types.ts';
import { silentLogger, type Logger } from '../log.ts';
import type { ReviewStore } from '../store/review-store.ts';
import { fitTopicsOffThread } from './fit.ts';
import { alignTopics, assignTopic, embedQuestions, OTHER_TOPIC, type TopicModel } from './topics.ts';

/** Options of {@link LiveTopics}. */
export interface LiveTopicsOptions {
  embedder: () => Promise<SentenceEmbedder>;
  registry: Registry;
  topicCount: number;
  warmupQueries: number;
  maxPending: number;
  /** Re-cluster when this share of recent questions is `other`; 1 = never. Default 1. */
  driftOtherShare?: number;
  store?: ReviewStore;
  /** Called with every model this process fits (to share it with other replicas). */
  publish?: (model: TopicModel) => void;
  /** Batch interval, milliseconds. Default 1000. */
  intervalMs?: number;
  logger?: Logger;
  now?: () => number;
}

/** Called with an answer's topic id (`t3`, `other`), or undefined when it has none (warm-up, queue full, failure). */
export type TopicCallback = (topic: string | undefined) => void;

const MODEL_NAME = 'topics.v1';

/** True when `a` should replace `b`: a later generation, or the earliest fit of the same generation (replicas converge on it). */
export function preferModel(a: TopicModel, b: TopicModel | undefined): boolean {
  if (!b) return true;
  const ga = a.generation ?? 1;
  const gb = b.generation ?? 1;
  if (ga !== gb) return ga > gb;
  return (a.fittedAtMs ?? 0) < (b.fittedAtMs ?? 0) || ((a.fittedAtMs ?? 0) === (b.fittedAtMs ?? 0) && (a.fitter ?? '') < (b.fitter ?? ''));
}

export class LiveTopics {
  readonly #o: LiveTopicsOptions;
  readonly #fitter = randomUUID();
  readonly #pending: Array<{ query: string; done: TopicCallback }> = [];
  /** Questions seen during the warm-up, waiting to join it. */
  readonly #warming: string[] = [];
  /** Distinct questions for the next fit: the warm-up, then the most recent ones (a ring). */
  readonly #recent: string[] = [];
  #recentNext = 0;
  /** Whether each of the last `warmupQueries` assignments was `other` (a ring), and how many were. */
  readonly #wasOther: boolean[] = [];
  #otherCount = 0;
  #sinceFit = 0;
  readonly #dropped: Counter;
  readonly #refits: Counter;
  readonly #info: Gauge<'topic' | 'label'>;
  #model: TopicModel | undefined;
  #timer: NodeJS.Timeout | undefined;
  #busy: Promise<void> | undefined;
  #stopped = false;

  constructor(options: LiveTopicsOptions) {
    this.#o = options;
    const registers = [options.registry];
    this.#info = new Gauge({ name: 'ragwatch_topic_info', help: 'The question topics in use: 1 per topic id with its name (its most distinctive words).', labelNames: ['topic', 'label'], registers });
    this.#dropped = new Counter({ name: 'ragwatch_topic_dropped_total', help: 'Scored answers left out of the topic breakdown because the embedding queue was full (weakness.maxPending) or embedding failed.', registers });
    this.#refits = new Counter({ name: 'ragwatch_topic_refits_total', help: 'Topic models adopted, by reason: warmup (first fit), drift (re-clustered here), shared (another replica fitted it).', labelNames: ['reason'], registers });
    const otherShare = () => (this.#wasOther.length > 0 ? this.#otherCount / this.#wasOther.length : undefined);
    new Gauge({
      name: 'ragwatch_topic_other_ratio',
      help: 'Share of the last weakness.warmupQueries assigned questions that fit no topic (`other`); re-clustering starts above weakness.driftOtherShare.',
      registers,
      collect() {
        const share = otherShare();
        if (share !== undefined) this.set(share);
      },
    });
    const saved = options.store?.model<TopicModel>(MODEL_NAME);
    if (saved) this.#use(saved);
  }

  /** The topic model in use (undefined during the warm-up). */
  get model(): TopicModel | undefined {
    return this.#model;
  }

  /** The name of a topic id. */
  label(id: string): string | undefined {
    if (id === OTHER_TOPIC) return OTHER_TOPIC;
    return this.#model?.labels[Number(id.slice(1))];
  }

  #use(model: TopicModel): void {
    this.#model = model;
    this.#info.reset();
    model.labels.forEach((label, i) => this.#info.set({ topic: `t${i}`, label }, 1));
    this.#wasOther.length = 0;
    this.#otherCount = 0;
    this.#sinceFit = 0;
  }

  /** Adopts a model another replica published, when it wins ({@link preferModel}); saved in the store. */
  offer(model: TopicModel): boolean {
    if (!Array.isArray(model.centroids) || !Array.isArray(model.labels) || model.centroids.length !== model.labels.length || model.centroids.length === 0) return false;
    if (!preferModel(model, this.#model)) return false;
    this.#adopt(model, model.fitter === this.#fitter ? undefined : 'shared');
    return true;
  }

  #adopt(model: TopicModel, reason: 'warmup' | 'drift' | 'shared' | undefined): void {
    this.#use(model);
    this.#o.store?.saveModel(MODEL_NAME, model);
    if (reason) this.#refits.inc({ reason });
  }

  /** Queues a question; `done` gets its topic later (off the scoring path). Never throws, never blocks. */
  observe(query: string, done: TopicCallback): void {
    if (!this.#model) {
      // No topic yet: the answer counts at once without one; its question joins the warm-up.
      done(undefined);
      if (!this.#stopped && this.#warming.length < this.#o.maxPending) this.#warming.push(query);
      return;
    }
    if (this.#stopped || this.#pending.length >= this.#o.maxPending) {
      if (!this.#stopped) this.#dropped.inc();
      done(undefined);
      return;
    }
    this.#pending.push({ query, done });
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

  #remember(query: string): void {
    if (this.#recent.length < this.#o.warmupQueries) this.#recent.push(query);
    else {
      this.#recent[this.#recentNext] = query;
      this.#recentNext = (this.#recentNext + 1) % this.#recent.length;
    }
  }

  async #batch(): Promise<void> {
    if (!this.#model && this.#warming.length > 0) {
      const seen = new Set(this.#recent);
      for (const q of this.#warming.splice(0)) {
        if (this.#recent.length >= this.#o.warmupQueries || seen.has(q)) continue;
        seen.add(q);
        this.#recent.push(q);
      }
      try {
        if (this.#recent.length >= this.#o.warmupQueries) await this.#fit('warmup');
      } catch (err) {
        (this.#o.logger ?? silentLogger).warn({ err: errorMessage(err) }, 'fitting the question topics failed; retrying with the next questions');
      }
    }
    const batch = this.#pending.splice(0, this.#pending.length);
    if (batch.length === 0) return;
    const seen = new Set(this.#recent);
    const fresh = [...new Set(batch.map((b) => b.query))].filter((q) => !seen.has(q));
    try {
      const model = this.#model!;
      const queries = [...new Set(batch.map((b) => b.query))];
      const vectors = await embedQuestions(await this.#o.embedder(), queries);
      const topicOf = new Map(queries.map((q, i) => [q, assignTopic(model, vectors[i]!).topic]));
      for (const b of batch) b.done(topicOf.get(b.query));
      for (const q of fresh) this.#remember(q);
      for (const q of queries) this.#countOther(topicOf.get(q) === OTHER_TOPIC);
      const share = this.#o.driftOtherShare ?? 1;
      if (share < 1 && this.#sinceFit >= this.#o.warmupQueries && this.#otherCount / this.#wasOther.length > share) await this.#fit('drift');
    } catch (err) {
      this.#dropped.inc(batch.length);
      for (const b of batch) b.done(undefined);
      (this.#o.logger ?? silentLogger).warn({ err: errorMessage(err), answers: batch.length }, 'topic assignment failed; answers left out of the topic breakdown');
    }
  }

  #countOther(other: boolean): void {
    const cap = this.#o.warmupQueries;
    const i = this.#sinceFit % cap;
    if (this.#wasOther.length < cap) this.#wasOther.push(other);
    else {
      if (this.#wasOther[i]) this.#otherCount--;
      this.#wasOther[i] = other;
    }
    if (other) this.#otherCount++;
    this.#sinceFit++;
  }

  async #fit(reason: 'warmup' | 'drift'): Promise<void> {
    const questions = [...this.#recent];
    const embeddings = await embedQuestions(await this.#o.embedder(), questions);
    let model: TopicModel = { ...(await fitTopicsOffThread({ questions, embeddings, k: this.#o.topicCount })), generation: (this.#model?.generation ?? 0) + 1, fittedAtMs: (this.#o.now ?? Date.now)(), fitter: this.#fitter };
    const logger = this.#o.logger ?? silentLogger;
    if (this.#stopped) return;
    if (this.#model && reason === 'drift') {
      const aligned = alignTopics(this.#model, model);
      model = aligned.model;
      logger.warn({ otherShare: this.#otherCount / this.#wasOther.length, kept: aligned.changes.kept.map((c) => `${c.id} ${c.label}`), replaced: aligned.changes.replaced.map((c) => `${c.id} ${c.previous} -> ${c.label}`) }, 'question topics re-clustered: questions drifted away from the topics');
    } else logger.info({ topics: model.labels.map((l, i) => `t${i} ${l}`) }, 'question topics fitted');
    this.#adopt(model, reason);
    this.#o.publish?.(model);
  }

  /** Stops the timer and finishes the batch in flight. Idempotent. */
  async shutdown(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#busy;
    for (const b of this.#pending.splice(0)) b.done(undefined);
  }

  /** Assigns what is queued now. */
  forceFlush(): Promise<void> {
    return this.flush();
  }
}

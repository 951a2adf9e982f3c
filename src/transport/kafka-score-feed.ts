/**
 * Split mode: a role that needs the score records of every scorer replica reads the scores topic in
 * its own consumer group (newest records only): `ragwatch prober` takes the records of probe traces
 * (the scorers score the probes' captured triplets like any other, so the prober does not judge them
 * a second time); `ragwatch slices` takes the production records. A record the filter does not want
 * is skipped after a look at its trace id, before it is parsed. A metric the reader's registry does not
 * know (an evaluator a newer scorer was configured with) is left out of the record (docs/kafka.md).
 * The scores topic is at-least-once (a failover can leave two records of one answer: docs/kafka.md,
 * "Delivery guarantees"): a record of an answer and judge read within the de-duplication window
 * (`transport.kafka.consumer.dedupeWindowMs`) is skipped and counted, so what the reader counts is
 * counted once.
 * @module
 */
import type { Consumer, Kafka, KafkaMessage } from 'kafkajs';
import type { RagwatchConfig } from '../config/schema.ts';
import { DedupeWindow } from './dedupe.ts';
import { errorMessage } from '../errors.ts';
import { useReadCodecs, withBatchLimit } from './kafka-codecs.ts';
import { refusalOf } from './kafka-refused-batch.ts';
import { KafkaTopicSetup } from './kafka-topics.ts';
import { silentLogger, type Logger } from '../log.ts';
import { BUILTIN_REGISTRY, type MetricRegistry } from '../metric-registry.ts';
import { scoreRecordSchema, type ScoreRecord } from '../triplet.ts';

/** Largest score record read, bytes (larger ones are not ragwatch's). */
const MAX_RECORD_BYTES = 1024 * 1024;

/** Options of {@link KafkaScoreFeed}. */
export interface KafkaScoreFeedOptions {
  kafka: Kafka;
  section: RagwatchConfig['transport']['kafka'];
  /** The consumer group (each role its own: `section.proberGroupId`, `section.slicesGroupId`). */
  groupId: string;
  /** Which records to take, by trace id (checked before the record is parsed). */
  accept: (traceId: string) => boolean;
  onRecord: (record: ScoreRecord) => void;
  /** The metrics this reader knows (its configuration's); others are left out of each record. Default the built-ins. */
  registry?: MetricRegistry;
  /** Names the feed in its logs. Default `score feed`. */
  name?: string;
  /** Called for each record skipped as a repeat of one already taken (same triplet and judge). */
  onDuplicate?: () => void;
  logger?: Logger;
}

export class KafkaScoreFeed {
  readonly #o: KafkaScoreFeedOptions;
  #consumer: Consumer | undefined;
  #running = false;
  #stopped = false;
  /** The error of the last refused batch logged. */
  #lastRefusal: string | undefined;
  readonly #setup: KafkaTopicSetup;
  /** Records taken (triplet id and judge), to skip a repeat of one. */
  readonly #seen: DedupeWindow;

  constructor(options: KafkaScoreFeedOptions) {
    this.#o = options;
    const c = options.section.consumer;
    this.#seen = new DedupeWindow({ windowMs: c.dedupeWindowMs, maxEntries: c.dedupeMaxEntries });
    // A group that joins before the topic exists holds none of its partitions until its next metadata
    // refresh (minutes): the topic is created first, as the scorers would.
    this.#setup = new KafkaTopicSetup({ kafka: options.kafka, section: options.section, topics: [{ topic: options.section.topics.scores }], ...(options.logger ? { logger: options.logger } : {}) });
  }

  /** True while consuming. */
  get running(): boolean {
    return this.#running;
  }

  /** Joins the group (retrying until it works or `shutdown()`) and starts reading. */
  start(): Promise<void> {
    useReadCodecs();
    return withBatchLimit({ maxBytes: this.#o.section.consumer.maxBatchBytes, key: 'transport.kafka.consumer.maxBatchBytes' }, () => this.#join());
  }

  async #join(): Promise<void> {
    const { section } = this.#o;
    const logger = this.#o.logger ?? silentLogger;
    await this.#setup.ensure();
    for (let attempt = 1; !this.#stopped; attempt++) {
      const consumer = this.#o.kafka.consumer({ groupId: this.#o.groupId, sessionTimeout: section.consumer.sessionTimeoutMs, heartbeatInterval: section.consumer.heartbeatIntervalMs, maxWaitTimeInMs: section.consumer.fetchMaxWaitMs, allowAutoTopicCreation: true });
      this.#consumer = consumer;
      // kafkajs gives up for good on some errors (no group coordinator yet, or during a failover):
      // join again with a fresh consumer rather than stay down while looking healthy.
      consumer.on(consumer.events.CRASH, (event) => {
        if (event.payload.restart || this.#stopped || this.#consumer !== consumer) return;
        logger.warn({ err: errorMessage(event.payload.error) }, `${this.#o.name ?? 'score feed'} crashed; rejoining`);
        this.#consumer = undefined;
        this.#running = false;
        void consumer
          .disconnect()
          .catch(() => undefined)
          .then(() => new Promise((r) => setTimeout(r, 1_000)))
          .then(() => (this.#stopped ? undefined : this.start()));
      });
      try {
        await consumer.connect();
        await consumer.subscribe({ topic: section.topics.scores, fromBeginning: false });
        await consumer.run({ autoCommit: true, eachMessage: async ({ message, partition }) => this.#take(message, partition) });
        // A crash during the join has already scheduled a fresh consumer.
        if (this.#consumer !== consumer) return;
        this.#running = !this.#stopped;
        return;
      } catch (err) {
        await consumer.disconnect().catch(() => undefined);
        logger.warn({ attempt, err: errorMessage(err) }, `${this.#o.name ?? 'score feed'} could not start; retrying`);
        await new Promise((r) => setTimeout(r, Math.min(5_000, 250 * 2 ** Math.min(attempt, 5))));
      }
    }
  }

  #take(message: KafkaMessage, partition: number): void {
    const refused = refusalOf(message);
    if (refused) {
      // Score records are shared state, not work: a refused batch is skipped (counted by the codec), said once per batch.
      const topic = this.#o.section.topics.scores;
      if (refused.error !== this.#lastRefusal) (this.#o.logger ?? silentLogger).warn({ topic, partition, offsets: refused.offsets, reason: refused.reason, err: refused.error }, `${this.#o.name ?? 'score feed'}: the record batch of ${topic}[${partition}] at offsets ${refused.offsets} was not decompressed; its records are skipped`);
      this.#lastRefusal = refused.error;
      return;
    }
    const value = message.value;
    if (!value || value.length > MAX_RECORD_BYTES) return;
    let raw: unknown;
    try {
      raw = JSON.parse(value.toString('utf8'));
    } catch {
      return;
    }
    const traceId = (raw as { traceId?: unknown } | null)?.traceId;
    if (typeof traceId !== 'string' || !this.#o.accept(traceId)) return;
    const parsed = scoreRecordSchema.safeParse(raw);
    if (!parsed.success) return;
    const registry = this.#o.registry ?? BUILTIN_REGISTRY;
    const record = parsed.data;
    // The companion judge's record shares the triplet id: the judge is part of what makes a record one.
    const key = `${record.tripletId}\u0000${record.judge.kind}\u0000${record.judge.model ?? ''}`;
    if (this.#seen.has(key)) {
      this.#o.onDuplicate?.();
      return;
    }
    this.#seen.mark(key);
    record.scores = registry.known(record.scores).known;
    record.skipped = registry.known(record.skipped).known;
    this.#o.onRecord(record);
  }

  /** Leaves the group. Idempotent. */
  async shutdown(): Promise<void> {
    this.#stopped = true;
    this.#setup.shutdown();
    this.#running = false;
    await this.#consumer?.disconnect().catch(() => undefined);
  }
}

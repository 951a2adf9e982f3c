/**
 * A compacted Kafka topic every replica reads whole: each reader has a consumer group of its own and
 * starts from the beginning, so state published by any replica (human labels, topic models) reaches
 * all of them, including ones that start later. Connection is retried until it works or `shutdown()`.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Consumer, Kafka, KafkaMessage, Producer } from 'kafkajs';
import { useReadCodecs, withBatchLimit } from './kafka-codecs.ts';
import { refusalOf } from './kafka-refused-batch.ts';
import { KafkaTopicSetup } from './kafka-topics.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import { errorMessage } from '../errors.ts';
import { silentLogger, type Logger } from '../log.ts';

/** Options of {@link KafkaBroadcast}. */
export interface KafkaBroadcastOptions {
  kafka: Kafka;
  section: RagwatchConfig['transport']['kafka'];
  topic: string;
  /** Names the consumer group (`<groupId>-<name>-<uuid>`) and the log lines. */
  name: string;
  /** Called for every message read (own ones included). Must not throw. */
  onMessage: (value: Buffer) => void;
  /** Larger messages are skipped. Default 256 KiB. */
  maxMessageBytes?: number;
  /** Only publish, never read (e.g. a process that only shares). Default false. */
  writeOnly?: boolean;
  logger?: Logger;
}

/** Longest a publish waits for the connection, milliseconds. */
const CONNECT_WAIT_MS = 30_000;
/** Most publishes waiting for the connection at once; further ones are not shared (logged). */
const MAX_WAITING = 1_000;

export class KafkaBroadcast {
  readonly #o: KafkaBroadcastOptions;
  readonly #logger: Logger;
  #producer: Producer | undefined;
  #consumer: Consumer | undefined;
  #stopped = false;
  /** The error of the last refused batch logged. */
  #lastRefusal: string | undefined;
  readonly #setup: KafkaTopicSetup;
  /** Resolves once the producer is connected (or at shutdown). */
  readonly #connected: Promise<void>;
  #markConnected!: () => void;
  /** Publishes waiting for the connection (bounded by {@link MAX_WAITING}). */
  #waiting = 0;

  constructor(options: KafkaBroadcastOptions) {
    this.#o = options;
    this.#logger = options.logger ?? silentLogger;
    // Compaction keeps the latest message per key for readers that start later.
    this.#connected = new Promise((resolve) => (this.#markConnected = resolve));
    this.#setup = new KafkaTopicSetup({ kafka: options.kafka, section: options.section, topics: [{ topic: options.topic, compacted: true }], logger: this.#logger });
  }

  /** True once the producer is connected. */
  get connected(): boolean {
    return this.#producer !== undefined;
  }

  /** Creates the compacted topic if missing, connects, and reads it from the beginning. */
  async start(): Promise<void> {
    const { kafka, topic, name } = this.#o;
    await this.#setup.ensure();
    for (let attempt = 1; !this.#stopped; attempt++) {
      try {
        this.#producer = kafka.producer({ allowAutoTopicCreation: true });
        await this.#producer.connect();
        this.#markConnected();
        break;
      } catch (err) {
        await this.#producer?.disconnect().catch(() => undefined);
        this.#producer = undefined;
        this.#logger.warn({ attempt, topic, err: errorMessage(err) }, `${name} topic not reachable; retrying`);
        await new Promise((r) => setTimeout(r, Math.min(5_000, 250 * 2 ** Math.min(attempt, 5))));
      }
    }
    if (!this.#o.writeOnly) await this.#read();
  }

  /** Hands on one message; a refused batch's records are skipped (counted by the codec), said once per batch. */
  #take(message: KafkaMessage, partition: number, max: number): void {
    const refused = refusalOf(message);
    if (refused) {
      const { topic, name } = this.#o;
      if (refused.error !== this.#lastRefusal) this.#logger.warn({ topic, partition, offsets: refused.offsets, reason: refused.reason, err: refused.error }, `${name} topic reader: the record batch of ${topic}[${partition}] at offsets ${refused.offsets} was not decompressed; its records are skipped`);
      this.#lastRefusal = refused.error;
      return;
    }
    if (message.value && message.value.length <= max) this.#o.onMessage(message.value);
  }

  /** Reads the topic from the beginning with a group of its own (its batches bounded by `transport.kafka.consumer.maxBatchBytes`). */
  #read(): Promise<void> {
    useReadCodecs();
    return withBatchLimit({ maxBytes: this.#o.section.consumer.maxBatchBytes, key: 'transport.kafka.consumer.maxBatchBytes' }, () => this.#readLoop());
  }

  /** Reads again with a fresh consumer after a crash kafkajs does not restart from. */
  async #readLoop(): Promise<void> {
    const { kafka, section, topic, name } = this.#o;
    for (let attempt = 1; !this.#stopped; attempt++) {
      const consumer = kafka.consumer({ groupId: `${section.groupId}-${name}-${randomUUID()}`, sessionTimeout: section.consumer.sessionTimeoutMs, heartbeatInterval: section.consumer.heartbeatIntervalMs, maxWaitTimeInMs: section.consumer.fetchMaxWaitMs, allowAutoTopicCreation: true });
      this.#consumer = consumer;
      // kafkajs gives up for good on some errors (no group coordinator yet on a new cluster, or during
      // a failover): without this the reader would stay down while the process looks healthy.
      consumer.on(consumer.events.CRASH, (event) => {
        if (event.payload.restart || this.#stopped || this.#consumer !== consumer) return;
        this.#logger.warn({ topic, err: errorMessage(event.payload.error) }, `${name} topic reader crashed; reading again`);
        this.#consumer = undefined;
        void consumer
          .disconnect()
          .catch(() => undefined)
          .then(() => new Promise((r) => setTimeout(r, 1_000)))
          .then(() => (this.#stopped ? undefined : this.#read()));
      });
      try {
        await consumer.connect();
        await consumer.subscribe({ topic, fromBeginning: true });
        const max = this.#o.maxMessageBytes ?? 256 * 1024;
        await consumer.run({ autoCommit: false, eachMessage: async ({ message, partition }) => this.#take(message, partition, max) });
        return;
      } catch (err) {
        if (this.#consumer === consumer) this.#consumer = undefined;
        await consumer.disconnect().catch(() => undefined);
        this.#logger.warn({ attempt, topic, err: errorMessage(err) }, `${name} topic not readable; retrying`);
        await new Promise((r) => setTimeout(r, Math.min(5_000, 250 * 2 ** Math.min(attempt, 5))));
      }
    }
  }

  /**
   * Publishes one message, waiting up to {@link CONNECT_WAIT_MS} for the connection (the topic is
   * created first, which takes a moment at start); resolves false (logged with `context`) when still
   * not connected, too many wait, or the send failed. Never rejects.
   */
  async publish(key: string, value: string, context: Record<string, unknown> = {}): Promise<boolean> {
    if (!this.#producer && !this.#stopped && this.#waiting < MAX_WAITING) {
      this.#waiting++;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.#connected, new Promise((r) => (timer = setTimeout(r, CONNECT_WAIT_MS)))]);
      clearTimeout(timer);
      this.#waiting--;
    }
    const producer = this.#producer;
    if (!producer) {
      this.#logger.warn(context, `kept here but not shared: the ${this.#o.name} topic is not connected yet`);
      return false;
    }
    try {
      await producer.send({ topic: this.#o.topic, messages: [{ key, value }] });
      return true;
    } catch (err) {
      this.#logger.warn({ ...context, err: errorMessage(err) }, `kept here but not shared: publishing to the ${this.#o.name} topic failed`);
      return false;
    }
  }

  /** Leaves the topic. Idempotent. */
  async shutdown(): Promise<void> {
    this.#stopped = true;
    this.#setup.shutdown();
    this.#markConnected();
    await this.#consumer?.disconnect().catch(() => undefined);
    await this.#producer?.disconnect().catch(() => undefined);
  }
}

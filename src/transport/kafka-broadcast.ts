/**
 * A compacted Kafka topic every replica reads whole: each reader has a consumer group of its own and
 * starts from the beginning, so state published by any replica (human labels, topic models) reaches
 * all of them, including ones that start later. Connection is retried until it works or `shutdown()`.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Consumer, Kafka, Producer } from 'kafkajs';
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

export class KafkaBroadcast {
  readonly #o: KafkaBroadcastOptions;
  readonly #logger: Logger;
  #producer: Producer | undefined;
  #consumer: Consumer | undefined;
  #stopped = false;
  readonly #setup: KafkaTopicSetup;

  constructor(options: KafkaBroadcastOptions) {
    this.#o = options;
    this.#logger = options.logger ?? silentLogger;
    // Compaction keeps the latest message per key for readers that start later.
    this.#setup = new KafkaTopicSetup({ kafka: options.kafka, section: options.section, topics: [{ topic: options.topic, compacted: true }], logger: this.#logger });
  }

  /** True once the producer is connected. */
  get connected(): boolean {
    return this.#producer !== undefined;
  }

  /** Creates the compacted topic if missing, connects, and reads it from the beginning. */
  async start(): Promise<void> {
    const { kafka, section, topic, name } = this.#o;
    await this.#setup.ensure();
    for (let attempt = 1; !this.#stopped; attempt++) {
      try {
        this.#producer = kafka.producer({ allowAutoTopicCreation: true });
        await this.#producer.connect();
        if (this.#o.writeOnly) return;
        this.#consumer = kafka.consumer({ groupId: `${section.groupId}-${name}-${randomUUID()}`, sessionTimeout: section.consumer.sessionTimeoutMs, heartbeatInterval: section.consumer.heartbeatIntervalMs, maxWaitTimeInMs: section.consumer.fetchMaxWaitMs, allowAutoTopicCreation: true });
        await this.#consumer.connect();
        await this.#consumer.subscribe({ topic, fromBeginning: true });
        const max = this.#o.maxMessageBytes ?? 256 * 1024;
        await this.#consumer.run({ autoCommit: false, eachMessage: async ({ message }) => void (message.value && message.value.length <= max && this.#o.onMessage(message.value)) });
        return;
      } catch (err) {
        await this.#consumer?.disconnect().catch(() => undefined);
        await this.#producer?.disconnect().catch(() => undefined);
        this.#consumer = undefined;
        this.#producer = undefined;
        this.#logger.warn({ attempt, topic, err: errorMessage(err) }, `${name} topic not reachable; retrying`);
        await new Promise((r) => setTimeout(r, Math.min(5_000, 250 * 2 ** Math.min(attempt, 5))));
      }
    }
  }

  /** Publishes one message; resolves false (logged with `context`) when not connected or the send failed. Never rejects. */
  async publish(key: string, value: string, context: Record<string, unknown> = {}): Promise<boolean> {
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
    await this.#consumer?.disconnect().catch(() => undefined);
    await this.#producer?.disconnect().catch(() => undefined);
  }
}

/**
 * Split mode: human labels travel on a compacted Kafka topic (`transport.kafka.topics.labels`, key =
 * triplet id + label concept) so every scorer replica fits the same calibration. A label given on one
 * replica's review page is published with its answer's scores (the other replicas never scored that
 * answer); every replica reads the whole topic from the beginning in a consumer group of its own and
 * stores what it reads — the refit is deterministic, so the replicas converge on one calibration.
 * @module
 */
import { randomUUID } from 'node:crypto';
import type { Admin, Consumer, Kafka, Producer } from 'kafkajs';
import type { RagwatchConfig } from '../config/schema.ts';
import { errorMessage } from '../errors.ts';
import { silentLogger, type Logger } from '../log.ts';
import type { Label, ReviewItem, ReviewStore } from './review-store.ts';

/** One message on the labels topic. */
interface LabelMessage {
  label: Label;
  item: ReviewItem;
}

/** Largest label message read, bytes. */
const MAX_MESSAGE_BYTES = 256 * 1024;

export class LabelBus {
  readonly #kafka: Kafka;
  readonly #section: RagwatchConfig['transport']['kafka'];
  readonly #store: ReviewStore;
  readonly #logger: Logger;
  #producer: Producer | undefined;
  #consumer: Consumer | undefined;
  #stopped = false;

  constructor(options: { kafka: Kafka; section: RagwatchConfig['transport']['kafka']; store: ReviewStore; logger?: Logger }) {
    this.#kafka = options.kafka;
    this.#section = options.section;
    this.#store = options.store;
    this.#logger = options.logger ?? silentLogger;
    this.#store.onLocalLabel = (label, item) => this.#publish({ label, item });
  }

  /** Creates the compacted topic if missing, connects, and reads it from the beginning. Retries until it works or `shutdown()`. */
  async start(): Promise<void> {
    const topic = this.#section.topics.labels;
    for (let attempt = 1; !this.#stopped; attempt++) {
      let admin: Admin | undefined;
      try {
        admin = this.#kafka.admin();
        await admin.connect();
        // Compaction keeps the latest label per key for replicas that start later; false = it existed.
        await admin.createTopics({ topics: [{ topic, configEntries: [{ name: 'cleanup.policy', value: 'compact' }] }] }).catch(() => false);
        await admin.disconnect();
        this.#producer = this.#kafka.producer({ allowAutoTopicCreation: true });
        await this.#producer.connect();
        // A group of its own per replica: every replica must read every label.
        this.#consumer = this.#kafka.consumer({ groupId: `${this.#section.groupId}-labels-${randomUUID()}`, sessionTimeout: this.#section.consumer.sessionTimeoutMs, heartbeatInterval: this.#section.consumer.heartbeatIntervalMs, maxWaitTimeInMs: this.#section.consumer.fetchMaxWaitMs, allowAutoTopicCreation: true });
        await this.#consumer.connect();
        await this.#consumer.subscribe({ topic, fromBeginning: true });
        await this.#consumer.run({ autoCommit: false, eachMessage: async ({ message }) => this.#take(message.value) });
        return;
      } catch (err) {
        await admin?.disconnect().catch(() => undefined);
        await this.#consumer?.disconnect().catch(() => undefined);
        await this.#producer?.disconnect().catch(() => undefined);
        this.#consumer = undefined;
        this.#producer = undefined;
        this.#logger.warn({ attempt, err: errorMessage(err) }, 'labels topic not reachable; retrying');
        await new Promise((r) => setTimeout(r, Math.min(5_000, 250 * 2 ** Math.min(attempt, 5))));
      }
    }
  }

  #publish(m: LabelMessage): void {
    const producer = this.#producer;
    if (!producer) {
      this.#logger.warn({ tripletId: m.label.tripletId }, 'label stored here but not shared: the labels topic is not connected yet');
      return;
    }
    producer.send({ topic: this.#section.topics.labels, messages: [{ key: `${m.label.tripletId}\u0000${m.label.metric}`, value: JSON.stringify(m) }] }).catch((err: unknown) => {
      this.#logger.warn({ tripletId: m.label.tripletId, err: errorMessage(err) }, 'label stored here but not shared: publishing failed');
    });
  }

  #take(value: Buffer | null): void {
    if (!value || value.length > MAX_MESSAGE_BYTES) return;
    try {
      const m = JSON.parse(value.toString('utf8')) as LabelMessage;
      if (typeof m.label?.tripletId !== 'string' || typeof m.item?.tripletId !== 'string' || (m.label.value !== 0 && m.label.value !== 1)) return;
      this.#store.addItem(m.item);
      this.#store.addLabel(m.label, true);
    } catch (err) {
      this.#logger.warn({ err: errorMessage(err) }, 'unreadable message on the labels topic skipped');
    }
  }

  /** Leaves the topic. Idempotent. */
  async shutdown(): Promise<void> {
    this.#stopped = true;
    this.#store.onLocalLabel = undefined;
    await this.#consumer?.disconnect().catch(() => undefined);
    await this.#producer?.disconnect().catch(() => undefined);
  }
}

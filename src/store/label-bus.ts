/**
 * Split mode: human labels travel on a compacted Kafka topic (`transport.kafka.topics.labels`, key =
 * triplet id + label concept) so every scorer replica fits the same calibration. A label given on one
 * replica's review page is published with its answer's scores (the other replicas never scored that
 * answer); every replica reads the whole topic from the beginning in a consumer group of its own and
 * stores what it reads — the refit is deterministic, so the replicas converge on one calibration.
 * @module
 */
import type { Kafka } from 'kafkajs';
import type { RagwatchConfig } from '../config/schema.ts';
import { errorMessage } from '../errors.ts';
import { silentLogger, type Logger } from '../log.ts';
import { KafkaBroadcast } from '../transport/kafka-broadcast.ts';
import type { Label, ReviewItem, ReviewStore } from './review-store.ts';

/** One message on the labels topic. */
interface LabelMessage {
  label: Label;
  item: ReviewItem;
}

export class LabelBus {
  readonly #store: ReviewStore;
  readonly #logger: Logger;
  readonly #bus: KafkaBroadcast;

  constructor(options: { kafka: Kafka; section: RagwatchConfig['transport']['kafka']; store: ReviewStore; logger?: Logger }) {
    this.#store = options.store;
    this.#logger = options.logger ?? silentLogger;
    this.#bus = new KafkaBroadcast({ kafka: options.kafka, section: options.section, topic: options.section.topics.labels, name: 'labels', onMessage: (v) => this.#take(v), logger: this.#logger });
    this.#store.onLocalLabel = (label, item) => void this.#bus.publish(`${label.tripletId}\u0000${label.metric}`, JSON.stringify({ label, item } satisfies LabelMessage), { tripletId: label.tripletId });
  }

  /** Creates the compacted topic if missing, connects, and reads it from the beginning. Retries until it works or `shutdown()`. */
  start(): Promise<void> {
    return this.#bus.start();
  }

  #take(value: Buffer): void {
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
    this.#store.onLocalLabel = undefined;
    await this.#bus.shutdown();
  }
}

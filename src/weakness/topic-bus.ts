/**
 * Split mode: the question-topic model travels on a compacted Kafka topic
 * (`transport.kafka.topics.topicModels`, key = generation + fitter) so every scorer replica — and a
 * collector or assembler that stratifies sampling by topic — uses the same topic ids. Each replica
 * may fit during its warm-up; all of them adopt, per generation, the earliest fit published
 * ({@link preferModel}), whatever order they read the topic in, so they converge on one model.
 * @module
 */
import type { Kafka } from 'kafkajs';
import type { RagwatchConfig } from '../config/schema.ts';
import { errorMessage } from '../errors.ts';
import { silentLogger, type Logger } from '../log.ts';
import { KafkaBroadcast } from '../transport/kafka-broadcast.ts';
import type { TopicModel } from './topics.ts';

/** Options of {@link TopicModelBus}. */
export interface TopicModelBusOptions {
  kafka: Kafka;
  section: RagwatchConfig['transport']['kafka'];
  /** Called with every model read (own ones included). */
  onModel: (model: TopicModel) => void;
  logger?: Logger;
}

export class TopicModelBus {
  readonly #bus: KafkaBroadcast;
  readonly #logger: Logger;

  constructor(options: TopicModelBusOptions) {
    this.#logger = options.logger ?? silentLogger;
    const take = (value: Buffer) => {
      try {
        options.onModel(JSON.parse(value.toString('utf8')) as TopicModel);
      } catch (err) {
        this.#logger.warn({ err: errorMessage(err) }, 'unreadable message on the topic-models topic skipped');
      }
    };
    // 12 topics × 384 floats as JSON is ~100 KB; 50 topics ~400 KB.
    this.#bus = new KafkaBroadcast({ kafka: options.kafka, section: options.section, topic: options.section.topics.topicModels, name: 'topics', onMessage: take, maxMessageBytes: 1024 * 1024, logger: this.#logger });
  }

  /** Creates the topic if missing, connects, reads it from the beginning; retries until it works or `shutdown()`. */
  start(): Promise<void> {
    return this.#bus.start();
  }

  /** Shares a model this process fitted. Never rejects. */
  publish(model: TopicModel): void {
    void this.#bus.publish(`${model.generation ?? 1}/${model.fitter ?? ''}`, JSON.stringify(model), { generation: model.generation });
  }

  /** Leaves the topic. Idempotent. */
  shutdown(): Promise<void> {
    return this.#bus.shutdown();
  }
}

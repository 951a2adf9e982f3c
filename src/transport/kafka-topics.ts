/**
 * Creates the Kafka topics a role uses, with the configured partitions and replication factor
 * (`transport.kafka.createTopics`), before it produces or consumes: a broker's auto-creation would
 * give them its own defaults (often 1 partition, replication factor 1). Topics that exist are left
 * as they are (adding partitions later re-maps keys); fewer partitions than configured is logged.
 * Where the principal may not create a topic, the error names the topic and the missing permission.
 * @module
 */
import type { Admin, Kafka } from 'kafkajs';
import { classifyKafkaError, type KafkaErrorCause } from './kafka-errors.ts';
import type { KafkaSection } from './kafka-client.ts';
import { RagwatchError, errorMessage } from '../errors.ts';
import { silentLogger, type Logger } from '../log.ts';

/** One topic a role needs. */
export interface TopicSpec {
  topic: string;
  /** `cleanup.policy=compact` (labels, topic models). */
  compacted?: boolean;
}

/** Options of {@link KafkaTopicSetup}. */
export interface KafkaTopicSetupOptions {
  kafka: Kafka;
  section: KafkaSection;
  topics: readonly TopicSpec[];
  /** Every failed attempt, classified (counted by the role). Must not throw. */
  onError?: (cause: KafkaErrorCause) => void;
  logger?: Logger;
}

/** The topics a role produces to or consumes from (the compacted shared-state topics set up their own). */
export function roleTopics(section: KafkaSection, role: 'collector' | 'assembler' | 'scorer'): TopicSpec[] {
  const t = section.topics;
  if (role === 'collector') return [{ topic: section.assembly === 'spans_topic' ? t.spans : t.triplets }];
  if (role === 'assembler') return [{ topic: t.spans }, { topic: t.triplets }, { topic: t.dlq }];
  return [{ topic: t.triplets }, { topic: t.scores }, { topic: t.dlq }];
}

/** Longest wait between two attempts, milliseconds. */
const MAX_BACKOFF_MS = 30_000;

interface CreateError {
  topic?: string;
  type?: string;
  message?: string;
}

/** Ensures the topics exist, retrying with backoff until they do or `shutdown()`. */
export class KafkaTopicSetup {
  readonly #o: KafkaTopicSetupOptions;
  readonly #logger: Logger;
  #done = false;
  #stopped = false;
  #wake: (() => void) | undefined;
  #run: Promise<void> | undefined;
  /** The last failure, while there is one. */
  lastError: KafkaErrorCause | undefined;

  constructor(options: KafkaTopicSetupOptions) {
    this.#o = options;
    this.#logger = options.logger ?? silentLogger;
  }

  /** True once every topic exists (created here or before). */
  get done(): boolean {
    return this.#done;
  }

  /** Resolves once every topic exists, or at `shutdown()`. Idempotent. */
  ensure(): Promise<void> {
    this.#run ??= this.#loop();
    return this.#run;
  }

  /** Stops retrying. Idempotent. */
  shutdown(): void {
    this.#stopped = true;
    this.#wake?.();
  }

  async #loop(): Promise<void> {
    let lastLogged = '';
    for (let attempt = 1; !this.#stopped; attempt++) {
      try {
        await this.#once();
        this.#done = true;
        if (this.lastError) this.#logger.info({ topics: this.#o.topics.map((t) => t.topic) }, 'kafka topics ready');
        this.lastError = undefined;
        return;
      } catch (err) {
        const cause = classifyKafkaError(err);
        // A RagwatchError of ours carries the whole story (topic, permission); keep it whole.
        if (err instanceof RagwatchError) cause.message = err.message;
        this.lastError = cause;
        this.#o.onError?.(cause);
        const delayMs = Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(attempt, 6));
        if (cause.message !== lastLogged || attempt % 20 === 0) {
          lastLogged = cause.message;
          this.#logger.error({ reason: cause.reason, err: cause.message, hint: cause.hint, attempt, retryInMs: delayMs }, 'kafka topics not ready');
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delayMs);
          this.#wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    }
  }

  async #once(): Promise<void> {
    const { kafka, section } = this.#o;
    const settings = section.createTopics;
    const admin: Admin = kafka.admin();
    try {
      await admin.connect();
      const existing = new Set(await admin.listTopics());
      const missing = this.#o.topics.filter((t) => !existing.has(t.topic));
      await this.#checkPartitions(admin, this.#o.topics.filter((t) => existing.has(t.topic) && !t.compacted).map((t) => t.topic));
      if (missing.length === 0) return;
      if (!settings.enabled) {
        throw new RagwatchError('RAGWATCH_KAFKA_TOPIC', `topics ${missing.map((t) => `"${t.topic}"`).join(', ')} do not exist and transport.kafka.createTopics.enabled is false: create them (${settings.partitions} partitions, replication factor ${settings.replicationFactor}) or enable creation`);
      }
      const brokers = (await admin.describeCluster()).brokers.length;
      const replicationFactor = Math.min(settings.replicationFactor, brokers);
      if (replicationFactor < settings.replicationFactor) {
        this.#logger.warn({ configured: settings.replicationFactor, brokers, replicationFactor }, 'transport.kafka.createTopics.replicationFactor exceeds the cluster\'s brokers; creating topics with one replica per broker');
      }
      try {
        await admin.createTopics({
          waitForLeaders: false,
          topics: missing.map((t) => ({
            topic: t.topic,
            numPartitions: t.compacted ? 1 : settings.partitions,
            replicationFactor,
            configEntries: t.compacted ? [{ name: 'cleanup.policy', value: 'compact' }] : [],
          })),
        });
      } catch (err) {
        const errors = ((err as { errors?: CreateError[] }).errors ?? []).filter((e) => e.type !== 'TOPIC_ALREADY_EXISTS');
        if ((err as { errors?: unknown }).errors === undefined) throw err;
        if (errors.length > 0) throw this.#explain(errors, section, replicationFactor, err);
      }
      this.#logger.info({ topics: missing.map((t) => `${t.topic} (${t.compacted ? '1 partition, compacted' : `${settings.partitions} partitions`})`), replicationFactor }, 'kafka topics created');
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  /** Logs topics with fewer partitions than configured (more scorers than partitions would idle). */
  async #checkPartitions(admin: Admin, topics: string[]): Promise<void> {
    if (topics.length === 0) return;
    try {
      const meta = await admin.fetchTopicMetadata({ topics });
      for (const t of meta.topics) {
        if (t.partitions.length < this.#o.section.createTopics.partitions) {
          this.#logger.info({ topic: t.name, partitions: t.partitions.length, configured: this.#o.section.createTopics.partitions }, 'kafka topic exists with fewer partitions than transport.kafka.createTopics.partitions (left as is: adding partitions re-maps keys)');
        }
      }
    } catch (err) {
      this.#logger.debug({ err: errorMessage(err) }, 'kafka topic metadata unavailable');
    }
  }

  /** One error naming every topic that could not be created and why. */
  #explain(errors: CreateError[], section: KafkaSection, replicationFactor: number, cause: unknown): RagwatchError {
    const principal = section.sasl ? `"${section.sasl.username}"` : 'this client';
    const parts = errors.map((e) => {
      const topic = `"${e.topic ?? '?'}"`;
      if (e.type === 'TOPIC_AUTHORIZATION_FAILED' || e.type === 'CLUSTER_AUTHORIZATION_FAILED') {
        return `topic ${topic}: ${principal} may not create it (${e.type}: needs the CREATE operation on the topic or the cluster) — grant CREATE, or create it yourself with ${section.createTopics.partitions} partitions`;
      }
      if (e.type === 'INVALID_REPLICATION_FACTOR') return `topic ${topic}: replication factor ${replicationFactor} refused (${e.message ?? e.type}) — set transport.kafka.createTopics.replicationFactor`;
      if (e.type === 'POLICY_VIOLATION') return `topic ${topic}: refused by the cluster's create-topic policy (${e.message ?? e.type})`;
      return `topic ${topic}: ${e.type ?? 'error'} (${e.message ?? 'no message'})`;
    });
    return new RagwatchError('RAGWATCH_KAFKA_TOPIC', `cannot create Kafka topics: ${parts.join('; ')}`, { cause });
  }
}

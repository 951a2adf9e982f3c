/**
 * Split mode: `ragwatch prober` reads the scores topic (its own consumer group, newest records only)
 * and hands the score records of probe traces to the prober's join — the scorers score the probes'
 * captured triplets like any other, so the prober does not judge them a second time. Everything else
 * on the topic is skipped after a look at the trace id.
 * @module
 */
import type { Consumer, Kafka } from 'kafkajs';
import type { RagwatchConfig } from '../config/schema.ts';
import { errorMessage } from '../errors.ts';
import { useWholeBatchGunzip } from '../transport/kafka-client.ts';
import { silentLogger, type Logger } from '../log.ts';
import { scoreRecordSchema, type ScoreRecord } from '../triplet.ts';
import { isProbeTraceId } from '../triplet.ts';

/** Largest score record read, bytes (larger ones are not ragwatch's). */
const MAX_RECORD_BYTES = 1024 * 1024;

/** Options of {@link KafkaScoreFeed}. */
export interface KafkaScoreFeedOptions {
  kafka: Kafka;
  section: RagwatchConfig['transport']['kafka'];
  onRecord: (record: ScoreRecord) => void;
  logger?: Logger;
}

export class KafkaScoreFeed {
  readonly #o: KafkaScoreFeedOptions;
  #consumer: Consumer | undefined;
  #running = false;
  #stopped = false;

  constructor(options: KafkaScoreFeedOptions) {
    this.#o = options;
  }

  /** True while consuming. */
  get running(): boolean {
    return this.#running;
  }

  /** Joins the group (retrying until it works or `shutdown()`) and starts reading. */
  async start(): Promise<void> {
    const { section } = this.#o;
    const logger = this.#o.logger ?? silentLogger;
    useWholeBatchGunzip();
    for (let attempt = 1; !this.#stopped; attempt++) {
      const consumer = this.#o.kafka.consumer({ groupId: section.proberGroupId, sessionTimeout: section.consumer.sessionTimeoutMs, heartbeatInterval: section.consumer.heartbeatIntervalMs, maxWaitTimeInMs: section.consumer.fetchMaxWaitMs, allowAutoTopicCreation: true });
      this.#consumer = consumer;
      try {
        await consumer.connect();
        await consumer.subscribe({ topic: section.topics.scores, fromBeginning: false });
        await consumer.run({ autoCommit: true, eachMessage: async ({ message }) => this.#take(message.value) });
        this.#running = !this.#stopped;
        return;
      } catch (err) {
        await consumer.disconnect().catch(() => undefined);
        logger.warn({ attempt, err: errorMessage(err) }, 'prober score feed could not start; retrying');
        await new Promise((r) => setTimeout(r, Math.min(5_000, 250 * 2 ** Math.min(attempt, 5))));
      }
    }
  }

  #take(value: Buffer | null): void {
    if (!value || value.length > MAX_RECORD_BYTES) return;
    let raw: unknown;
    try {
      raw = JSON.parse(value.toString('utf8'));
    } catch {
      return;
    }
    const traceId = (raw as { traceId?: unknown } | null)?.traceId;
    if (typeof traceId !== 'string' || !isProbeTraceId(traceId)) return;
    const parsed = scoreRecordSchema.safeParse(raw);
    if (parsed.success) this.#o.onRecord(parsed.data);
  }

  /** Leaves the group. Idempotent. */
  async shutdown(): Promise<void> {
    this.#stopped = true;
    this.#running = false;
    await this.#consumer?.disconnect().catch(() => undefined);
  }
}

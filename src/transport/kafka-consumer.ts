/**
 * Kafka consumer side of the transport (scorer role): consumer group `ragwatch-scorer`,
 * `eachBatch` with manual commits. A message's offset is committed only after it was scored
 * (score record acknowledged on the scores topic), sent to the DLQ (acknowledged), or counted
 * as dropped — at-least-once, with redeliveries de-duplicated by triplet id. Poison messages
 * (empty, oversized, bad JSON, wrong schema version, schema-invalid) go straight to the DLQ with
 * `error`/`stage` headers; judge back-pressure pauses the partition for `retryAfterMs`.
 * @module
 */
import type { Consumer, EachBatchPayload, IHeaders, Kafka, KafkaMessage, Message } from 'kafkajs';
import { DedupeWindow } from './dedupe.ts';
import type { BufferedKafkaProducer } from './kafka-buffered-producer.ts';
import type { KafkaSection } from './kafka-client.ts';
import type { HandleResult, TripletConsumer, TripletHandler } from './types.ts';
import { errorMessage } from '../errors.ts';
import { silentLogger, type Logger } from '../log.ts';
import type { Instruments } from '../metrics/instruments.ts';
import { SCHEMA_VERSION, sampledTripletSchema, type SampledTriplet } from '../triplet.ts';

/** Options of {@link KafkaTripletConsumer}. */
export interface KafkaTripletConsumerOptions {
  kafka: Kafka;
  section: KafkaSection;
  instruments: Instruments;
  /** Sends score records and DLQ entries (acknowledged before the offset is committed). */
  producer: BufferedKafkaProducer;
  /** Partitions consumed at once, and triplets judged at once per partition. Default 2. */
  concurrency?: number;
  /** Publish ScoreRecords to the scores topic. Default true. */
  publishScores?: boolean;
  logger?: Logger;
}

type Outcome =
  | { kind: 'done'; out?: { topic: 'scores' | 'dlq'; message: Message } }
  | { kind: 'retry'; retryAfterMs: number };

/** Where a poison message was rejected. */
type PoisonStage = 'decode' | 'validate';

/** Messages processed between offset commits within one batch. */
const COMMIT_EVERY = 50;
/** Longest text put in the `error` header, characters. */
const MAX_ERROR_CHARS = 500;

function header(headers: IHeaders | undefined, name: string): string | undefined {
  const v = headers?.[name];
  if (v === undefined) return undefined;
  const first = Array.isArray(v) ? v[0] : v;
  return first === undefined ? undefined : first.toString();
}

export class KafkaTripletConsumer implements TripletConsumer {
  readonly #kafka: Kafka;
  readonly #section: KafkaSection;
  readonly #instruments: Instruments;
  readonly #producer: BufferedKafkaProducer;
  readonly #concurrency: number;
  readonly #publishScores: boolean;
  readonly #logger: Logger;
  readonly #dedupe: DedupeWindow;
  /** `partition:offset` → attempts so far, for triplets redelivered after a retry pause (bounded). */
  readonly #attempts = new Map<string, number>();
  readonly #pauseTimers = new Set<NodeJS.Timeout>();
  /** Triplet ids being judged right now (a duplicate in the same chunk must not be judged twice). */
  readonly #inProgress = new Set<string>();
  #consumer: Consumer | undefined;
  #running = false;
  #stopped = false;
  #activeBatches = 0;
  #idleWaiters: Array<() => void> = [];
  #shutdown: Promise<void> | undefined;

  constructor(options: KafkaTripletConsumerOptions) {
    this.#kafka = options.kafka;
    this.#section = options.section;
    this.#instruments = options.instruments;
    this.#producer = options.producer;
    this.#concurrency = options.concurrency ?? 2;
    this.#publishScores = options.publishScores ?? true;
    this.#logger = options.logger ?? silentLogger;
    const c = options.section.consumer;
    this.#dedupe = new DedupeWindow({ windowMs: c.dedupeWindowMs, maxEntries: c.dedupeMaxEntries });
  }

  get running(): boolean {
    return this.#running;
  }

  /** Joins the group and starts consuming; retries the initial connection until it works or `shutdown()`. */
  async start(handler: TripletHandler): Promise<void> {
    const c = this.#section.consumer;
    for (let attempt = 1; !this.#stopped; attempt++) {
      const consumer = this.#kafka.consumer({
        groupId: this.#section.groupId,
        sessionTimeout: c.sessionTimeoutMs,
        heartbeatInterval: c.heartbeatIntervalMs,
        maxBytesPerPartition: c.maxBytesPerPartition,
        maxWaitTimeInMs: c.fetchMaxWaitMs,
        maxBytes: Math.max(c.maxBytesPerPartition * 4, 16 * 1024 * 1024),
        allowAutoTopicCreation: true,
      });
      consumer.on(consumer.events.GROUP_JOIN, (event) => this.#onAssignment(event.payload.memberAssignment[this.#section.topics.triplets] ?? []));
      try {
        await consumer.connect();
        await consumer.subscribe({ topic: this.#section.topics.triplets, fromBeginning: c.fromBeginning });
        await consumer.run({
          autoCommit: false,
          eachBatchAutoResolve: false,
          partitionsConsumedConcurrently: this.#concurrency,
          eachBatch: (payload) => this.#eachBatch(payload, handler),
        });
        this.#consumer = consumer;
        this.#running = !this.#stopped;
        if (this.#stopped) await consumer.disconnect().catch(() => undefined);
        return;
      } catch (err) {
        await consumer.disconnect().catch(() => undefined);
        this.#logger.warn({ attempt, err: errorMessage(err) }, 'kafka consumer could not start; retrying');
        await new Promise((r) => setTimeout(r, Math.min(5_000, 250 * 2 ** Math.min(attempt, 5))));
      }
    }
  }

  /** Resolves when no batch is being processed. */
  forceFlush(): Promise<void> {
    if (this.#activeBatches === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Stops fetching, lets the current batches finish and commit, leaves the group. Idempotent. */
  shutdown(): Promise<void> {
    this.#shutdown ??= (async () => {
      this.#stopped = true;
      this.#running = false;
      for (const t of this.#pauseTimers) clearTimeout(t);
      this.#pauseTimers.clear();
      this.#instruments.kafkaPaused.set(0);
      await this.#consumer?.disconnect().catch(() => undefined);
    })();
    return this.#shutdown;
  }

  /**
   * After a rebalance, triplets waiting for a retry on partitions this scorer lost are another
   * scorer's now (redelivered from the committed offset): settle them here so `in_flight` is not
   * left counting them.
   */
  #onAssignment(partitions: number[]): void {
    const owned = new Set(partitions);
    for (const key of [...this.#attempts.keys()]) {
      if (owned.has(Number(key.split(':')[0]))) continue;
      this.#attempts.delete(key);
      this.#instruments.dropped.inc({ stage: 'scorer', reason: 'reassigned' });
      this.#instruments.inFlight.dec();
    }
  }

  async #eachBatch(payload: EachBatchPayload, handler: TripletHandler): Promise<void> {
    const { batch, resolveOffset, heartbeat, isRunning, isStale } = payload;
    const { topic, partition } = batch;
    this.#activeBatches++;
    const pending: { scores: Message[]; dlq: Message[] } = { scores: [], dlq: [] };
    let lastDone: string | undefined;
    let sinceCommit = 0;
    const commit = async (): Promise<void> => {
      await this.#deliver(this.#section.topics.scores, pending.scores, isRunning);
      await this.#deliver(this.#section.topics.dlq, pending.dlq, isRunning);
      pending.scores = [];
      pending.dlq = [];
      if (lastDone === undefined) return;
      const next = (BigInt(lastDone) + 1n).toString();
      resolveOffset(lastDone);
      await this.#consumer?.commitOffsets([{ topic, partition, offset: next }]);
      this.#instruments.kafkaConsumerLag.set({ topic, partition: String(partition) }, Math.max(0, Number(BigInt(batch.highWatermark) - BigInt(next))));
      lastDone = undefined;
      sinceCommit = 0;
    };
    try {
      const messages = batch.messages;
      for (let i = 0; i < messages.length; i += this.#concurrency) {
        if (!isRunning() || isStale() || this.#stopped) break;
        const chunk = messages.slice(i, i + this.#concurrency);
        const outcomes = await Promise.all(chunk.map((m) => this.#process(topic, partition, m, handler)));
        let retryAfterMs: number | undefined;
        for (const [k, outcome] of outcomes.entries()) {
          if (outcome.kind === 'retry') {
            retryAfterMs ??= outcome.retryAfterMs;
            continue;
          }
          if (outcome.out) pending[outcome.out.topic].push(outcome.out.message);
          // Offsets advance only over a contiguous prefix of finished messages.
          if (retryAfterMs === undefined) {
            lastDone = chunk[k]!.offset;
            sinceCommit++;
          }
        }
        if (retryAfterMs !== undefined) {
          await commit();
          this.#pause(topic, partition, retryAfterMs);
          return;
        }
        if (sinceCommit >= COMMIT_EVERY) await commit();
        await heartbeat();
      }
      await commit();
    } finally {
      this.#activeBatches--;
      if (this.#activeBatches === 0) {
        const waiters = this.#idleWaiters;
        this.#idleWaiters = [];
        for (const w of waiters) w();
      }
    }
  }

  /** Sends and waits for the acknowledgement, retrying while the consumer runs (the offset waits for it). */
  async #deliver(topic: string, messages: Message[], isRunning: () => boolean): Promise<void> {
    for (let attempt = 1; messages.length > 0; attempt++) {
      try {
        await this.#producer.sendNow(topic, messages);
        return;
      } catch (err) {
        this.#instruments.kafkaProduceErrors.inc({ topic });
        if (!isRunning() || this.#stopped) throw err;
        if (attempt === 1) this.#logger.warn({ topic, err: errorMessage(err) }, 'kafka send failed; offset not committed, retrying');
        await new Promise((r) => setTimeout(r, Math.min(2_000, 100 * 2 ** Math.min(attempt, 5))));
      }
    }
  }

  #pause(topic: string, partition: number, retryAfterMs: number): void {
    const consumer = this.#consumer;
    if (!consumer) return;
    consumer.pause([{ topic, partitions: [partition] }]);
    this.#instruments.kafkaPaused.inc();
    this.#logger.info({ topic, partition, retryAfterMs }, 'judge back-pressure: partition paused');
    const timer = setTimeout(() => {
      this.#pauseTimers.delete(timer);
      this.#instruments.kafkaPaused.dec();
      if (!this.#stopped) consumer.resume([{ topic, partitions: [partition] }]);
    }, retryAfterMs);
    timer.unref();
    this.#pauseTimers.add(timer);
  }

  async #process(topic: string, partition: number, message: KafkaMessage, handler: TripletHandler): Promise<Outcome> {
    const key = `${partition}:${message.offset}`;
    const attempt = (this.#attempts.get(key) ?? 0) + 1;
    if (attempt === 1) {
      this.#instruments.received.inc();
      this.#instruments.inFlight.inc();
    }
    const parsed = this.#decode(message);
    if (!parsed.ok) return this.#poison(topic, partition, message, parsed.stage, parsed.reason, parsed.error);
    const triplet = parsed.triplet;
    if (this.#dedupe.has(triplet.id) || this.#inProgress.has(triplet.id)) {
      this.#attempts.delete(key);
      this.#instruments.deduplicated.inc();
      this.#instruments.dropped.inc({ stage: 'scorer', reason: 'duplicate' });
      this.#instruments.inFlight.dec();
      return { kind: 'done' };
    }
    let result: HandleResult;
    this.#inProgress.add(triplet.id);
    try {
      result = await handler(triplet, { attempt });
    } catch (err) {
      // Handlers return results; a throw is a bug. Settle it like a failure so the partition moves on.
      this.#instruments.failed.inc({ reason: 'internal_error' });
      this.#instruments.inFlight.dec();
      result = { status: 'failed', reason: 'internal_error', error: err instanceof Error ? err : new Error(String(err)) };
    } finally {
      this.#inProgress.delete(triplet.id);
    }
    if (result.status === 'retry') {
      if (this.#attempts.size > 10_000) this.#attempts.clear();
      this.#attempts.set(key, attempt);
      return { kind: 'retry', retryAfterMs: result.retryAfterMs };
    }
    this.#attempts.delete(key);
    if (result.status === 'dropped') return { kind: 'done' };
    this.#dedupe.mark(triplet.id);
    if (result.status === 'failed') {
      this.#instruments.dlq.inc({ stage: 'judge', reason: result.reason });
      const error = result.error ? errorMessage(result.error) : result.reason;
      return { kind: 'done', out: { topic: 'dlq', message: this.#dlqMessage(topic, partition, message, 'judge', result.reason, error, result.attempts ?? attempt) } };
    }
    if (!this.#publishScores || !result.record) return { kind: 'done' };
    return {
      kind: 'done',
      out: {
        topic: 'scores',
        message: { key: triplet.traceId, value: JSON.stringify(result.record), headers: { 'schema-version': SCHEMA_VERSION, 'content-type': 'application/json' } },
      },
    };
  }

  #decode(message: KafkaMessage): { ok: true; triplet: SampledTriplet } | { ok: false; stage: PoisonStage; reason: string; error: string } {
    const value = message.value;
    if (!value || value.length === 0) return { ok: false, stage: 'decode', reason: 'empty_value', error: 'message has no value' };
    const max = this.#section.consumer.maxMessageBytes;
    if (value.length > max) return { ok: false, stage: 'decode', reason: 'too_large', error: `value is ${value.length} bytes, limit ${max}` };
    const version = header(message.headers, 'schema-version');
    if (version !== SCHEMA_VERSION) {
      return { ok: false, stage: 'validate', reason: 'schema_version', error: `schema-version ${version === undefined ? 'missing' : JSON.stringify(version.slice(0, 20))}, expected ${SCHEMA_VERSION}` };
    }
    let json: unknown;
    try {
      json = JSON.parse(value.toString('utf8'));
    } catch (err) {
      return { ok: false, stage: 'decode', reason: 'bad_json', error: errorMessage(err) };
    }
    const result = sampledTripletSchema.safeParse(json);
    if (!result.success) {
      const issue = result.error.issues[0];
      return { ok: false, stage: 'validate', reason: 'schema_invalid', error: issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid' };
    }
    return { ok: true, triplet: result.data };
  }

  #poison(topic: string, partition: number, message: KafkaMessage, stage: PoisonStage, reason: string, error: string): Outcome {
    this.#instruments.failed.inc({ reason });
    this.#instruments.dlq.inc({ stage, reason });
    this.#instruments.inFlight.dec();
    return { kind: 'done', out: { topic: 'dlq', message: this.#dlqMessage(topic, partition, message, stage, reason, error, 1) } };
  }

  #dlqMessage(topic: string, partition: number, message: KafkaMessage, stage: string, reason: string, error: string, attempts: number): Message {
    const limit = this.#section.consumer.maxMessageBytes;
    const value = message.value ?? null;
    // An oversized original would be refused by the broker too: keep its head so the DLQ write cannot stall the partition.
    const truncated = value !== null && value.length > limit;
    const headers: IHeaders = {
      error: error.slice(0, MAX_ERROR_CHARS),
      stage,
      reason,
      attempts: String(attempts),
      'original-topic': topic,
      'original-partition': String(partition),
      'original-offset': message.offset,
      'original-size': String(value?.length ?? 0),
    };
    const version = header(message.headers, 'schema-version');
    if (version !== undefined) headers['schema-version'] = version.slice(0, 20);
    if (truncated) headers.truncated = 'true';
    return { key: message.key ?? null, value: truncated ? value.subarray(0, Math.floor(limit / 2)) : value, headers };
  }
}

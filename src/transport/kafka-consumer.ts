/**
 * Kafka consumer side of the transport (scorer role): consumer group `ragwatch-scorer`,
 * `eachBatch` with manual commits. A message's offset is committed only after it was scored
 * (score record acknowledged on the scores topic), sent to the DLQ (acknowledged), or counted
 * as dropped — at-least-once, with redeliveries de-duplicated by triplet id. Poison messages
 * (empty, oversized, bad JSON, wrong schema version, schema-invalid) go straight to the DLQ with
 * `error`/`stage` headers; judge back-pressure pauses the partition for `retryAfterMs`.
 * @module
 */
import type { EachBatchPayload, Kafka, KafkaMessage, Message } from 'kafkajs';
import { DedupeWindow } from './dedupe.ts';
import type { BufferedKafkaProducer } from './kafka-buffered-producer.ts';
import type { KafkaSection } from './kafka-client.ts';
import { KafkaGroupMember } from './kafka-group.ts';
import { decodeTriplet, dlqMessage, type PoisonStage } from './kafka-poison.ts';
import type { HandleResult, TripletConsumer, TripletHandler } from './types.ts';
import { UnsentOutcomes, type OutcomeRecords } from './unsent-outcomes.ts';
import { errorMessage } from '../errors.ts';
import { silentLogger, type Logger } from '../log.ts';
import type { Instruments } from '../telemetry/instruments.ts';
import { SCHEMA_VERSION } from '../triplet.ts';

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
  /** `id`: remembered for de-duplication once `out` is acknowledged (never before: a lost send must be judged again). */
  | { kind: 'done'; out?: OutcomeRecords; id?: string }
  | { kind: 'retry'; retryAfterMs: number };


/** Messages processed between offset commits within one batch. */
const COMMIT_EVERY = 50;


/** The scorer's consumer-group loop: decode → dedupe → judge → scores/DLQ → commit. */
export class KafkaTripletConsumer implements TripletConsumer {
  readonly #kafka: Kafka;
  readonly #section: KafkaSection;
  readonly #instruments: Instruments;
  readonly #producer: BufferedKafkaProducer;
  readonly #concurrency: number;
  readonly #publishScores: boolean;
  readonly #logger: Logger;
  readonly #dedupe: DedupeWindow;
  /** Judged triplets of batches cut short before their records were sent, for their redelivery. */
  readonly #unsent: UnsentOutcomes;
  /** `partition:offset` → attempts so far, for triplets redelivered after a retry pause (bounded). */
  readonly #attempts = new Map<string, number>();
  readonly #pauseTimers = new Set<NodeJS.Timeout>();
  /** Triplet ids being judged right now (a duplicate in the same chunk must not be judged twice). */
  readonly #inProgress = new Set<string>();
  /** Triplet ids judged whose records are not yet acknowledged (a duplicate meanwhile is not judged again). */
  readonly #undelivered = new Set<string>();
  #member: KafkaGroupMember | undefined;
  /** Partitions with a lag series exported. */
  readonly #lagPartitions = new Set<number>();
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
    this.#unsent = new UnsentOutcomes({ windowMs: c.dedupeWindowMs, maxEntries: Math.min(c.dedupeMaxEntries, 5_000), onEvict: () => this.#instruments.unsentOutcomes.inc({ outcome: 'evicted' }) });
  }

  get running(): boolean {
    return this.#member?.running ?? false;
  }

  /** Joins the group and starts consuming; retries the initial connection until it works or `shutdown()`, rejoins after crashes. */
  async start(handler: TripletHandler): Promise<void> {
    const c = this.#section.consumer;
    this.#member ??= new KafkaGroupMember({
      kafka: this.#kafka,
      groupId: this.#section.groupId,
      topic: this.#section.topics.triplets,
      consumer: c,
      maxBytes: Math.max(c.maxBytesPerPartition * 4, 16 * 1024 * 1024),
      partitionsConsumedConcurrently: this.#concurrency,
      eachBatch: (payload) => this.#eachBatch(payload, handler),
      onAssignment: (partitions) => this.#onAssignment(partitions),
      onError: (cause) => this.#instruments.kafkaConnectionErrors.inc({ reason: cause.reason }),
      name: 'kafka consumer',
      logger: this.#logger,
    });
    if (this.#stopped) return;
    await this.#member.start();
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
      for (const t of this.#pauseTimers) clearTimeout(t);
      this.#pauseTimers.clear();
      this.#instruments.kafkaPaused.set(0);
      await this.#member?.shutdown();
    })();
    return this.#shutdown;
  }

  /**
   * After a rebalance, triplets waiting for a retry on partitions this scorer lost are another
   * scorer's now (redelivered from the committed offset): settle them here so `in_flight` is not
   * left counting them.
   */
  #onAssignment(partitions: number[]): void {
    this.#instruments.kafkaAssigned.set(partitions.length);
    const owned = new Set(partitions);
    // A lost partition's lag is its new owner's to export: a stale series here would count it twice.
    for (const p of this.#lagPartitions) {
      if (owned.has(p)) continue;
      this.#instruments.kafkaConsumerLag.remove({ topic: this.#section.topics.triplets, partition: String(p) });
      this.#lagPartitions.delete(p);
    }
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
    /** Finished since the last commit: records to send, and the triplet id remembered once they are acknowledged. */
    let pending: Array<{ id?: string; out: OutcomeRecords }> = [];
    let lastDone: string | undefined;
    let sinceCommit = 0;
    const commit = async (): Promise<void> => {
      for (const topicName of ['scores', 'dlq'] as const) {
        await this.#deliver(this.#section.topics[topicName], pending.flatMap((p) => p.out.filter((o) => o.topic === topicName).map((o) => o.message)), isRunning);
        // Sent: a batch cut short from here on must not send them again with a kept outcome.
        for (const p of pending) p.out = p.out.filter((o) => o.topic !== topicName);
      }
      // Only now are their records durable: a redelivery from here on is a duplicate.
      for (const { id } of pending) {
        if (id === undefined) continue;
        this.#dedupe.mark(id);
        this.#undelivered.delete(id);
      }
      pending = [];
      if (lastDone === undefined) return;
      const next = (BigInt(lastDone) + 1n).toString();
      resolveOffset(lastDone);
      await this.#member?.consumer?.commitOffsets([{ topic, partition, offset: next }]);
      this.#instruments.kafkaConsumerLag.set({ topic, partition: String(partition) }, Math.max(0, Number(BigInt(batch.highWatermark) - BigInt(next))));
      this.#lagPartitions.add(partition);
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
          pending.push({ ...(outcome.id === undefined ? {} : { id: outcome.id }), out: outcome.out ?? [] });
          if (outcome.id !== undefined) this.#undelivered.add(outcome.id);
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
      // A batch that ends by an error (a heartbeat refused in a rebalance or by a lost coordinator, a
      // failed commit) leaves its records unsent and its offsets uncommitted: the triplets come again.
      // Their judgments are kept, so a redelivery here publishes them instead of judging again.
      for (const { id, out } of pending) {
        if (id === undefined) continue;
        this.#undelivered.delete(id);
        this.#unsent.keep(id, out);
        this.#instruments.unsentOutcomes.inc({ outcome: 'kept' });
      }
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
    const consumer = this.#member?.consumer;
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
    const parsed = decodeTriplet(message, this.#section.consumer.maxMessageBytes);
    if (!parsed.ok) return this.#poison(topic, partition, message, parsed.stage, parsed.reason, parsed.error);
    const triplet = parsed.triplet;
    if (this.#dedupe.has(triplet.id) || this.#inProgress.has(triplet.id) || this.#undelivered.has(triplet.id)) {
      this.#attempts.delete(key);
      this.#instruments.deduplicated.inc();
      this.#instruments.dropped.inc({ stage: 'scorer', reason: 'duplicate' });
      this.#instruments.inFlight.dec();
      return { kind: 'done' };
    }
    const kept = this.#unsent.take(triplet.id);
    if (kept !== undefined) {
      this.#attempts.delete(key);
      this.#instruments.unsentOutcomes.inc({ outcome: 'reused' });
      this.#instruments.deduplicated.inc();
      this.#instruments.dropped.inc({ stage: 'scorer', reason: 'duplicate' });
      this.#instruments.inFlight.dec();
      return { kind: 'done', out: kept, id: triplet.id };
    }
    let result: HandleResult;
    this.#inProgress.add(triplet.id);
    try {
      result = await handler(triplet, { attempt, source: { topic, partition, offset: message.offset } });
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
    const out: OutcomeRecords = [];
    if (result.status === 'failed') {
      this.#instruments.dlq.inc({ stage: 'judge', reason: result.reason });
      const error = result.error ? errorMessage(result.error) : result.reason;
      out.push({ topic: 'dlq', message: dlqMessage({ topic, partition, message, stage: 'judge', reason: result.reason, error, attempts: result.attempts ?? attempt, maxBytes: this.#section.consumer.maxMessageBytes }) });
    }
    if (this.#publishScores) {
      for (const record of [result.status === 'scored' ? result.record : undefined, result.companion]) {
        if (record) out.push({ topic: 'scores', message: { key: triplet.traceId, value: JSON.stringify(record), headers: { 'schema-version': SCHEMA_VERSION, 'content-type': 'application/json' } } });
      }
    }
    return { kind: 'done', out, id: triplet.id };
  }

  #poison(topic: string, partition: number, message: KafkaMessage, stage: PoisonStage, reason: string, error: string): Outcome {
    this.#instruments.failed.inc({ reason });
    this.#instruments.dlq.inc({ stage, reason });
    this.#instruments.inFlight.dec();
    return { kind: 'done', out: [{ topic: 'dlq', message: dlqMessage({ topic, partition, message, stage, reason, error, attempts: 1, maxBytes: this.#section.consumer.maxMessageBytes }) }] };
  }

}

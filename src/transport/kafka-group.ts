/**
 * One consumer-group membership that stays a member, shared by the scorer's triplet consumer and
 * the assembler's span consumer: joins (retrying the first connection with backoff until it works
 * or `shutdown()`), reports every assignment, and rejoins with a fresh kafkajs consumer after a
 * crash kafkajs does not restart from itself — seen on the mock cluster as a protocol error
 * answering SyncGroup when a second member joins. Without that a member would stay up and ready
 * while owning no partitions.
 * @module
 */
import { PartitionAssigners, type Consumer, type EachBatchPayload, type Kafka } from 'kafkajs';
import type { KafkaSection } from './kafka-client.ts';
import { useReadCodecs, withBatchLimit, type BatchLimit } from './kafka-codecs.ts';
import { classifyKafkaError, type KafkaErrorCause } from './kafka-errors.ts';
import { refusalOf } from './kafka-refused-batch.ts';
import { stickyAssigner, type PartitionClaim, type TopicPartition } from './kafka-sticky-assigner.ts';
import { errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';

/** Options of {@link KafkaGroupMember}. */
export interface KafkaGroupMemberOptions {
  kafka: Kafka;
  groupId: string;
  topic: string;
  /** Further topics subscribed in the same membership (assignments are reported for `topic` only). */
  alsoTopics?: readonly string[];
  consumer: KafkaSection['consumer'];
  /** Fetch limit over all partitions, bytes; kafkajs's default when absent. */
  maxBytes?: number;
  /** Largest record batch decompressed and its key (a bigger one reaches `eachBatch` as refusal records). Default `transport.kafka.consumer.maxBatchBytes`. */
  batchLimit?: BatchLimit;
  partitionsConsumedConcurrently: number;
  eachBatch: (payload: EachBatchPayload) => Promise<void>;
  /** This member's partitions of `topic` after every join; `[]` with `crashed` after a crash (until the rejoin). */
  onAssignment: (partitions: number[], crashed: boolean) => void;
  /** kafkajs learned that the group is rebalancing and is about to rejoin. */
  onRebalancing?: () => void;
  /** Every failed start, classified (e.g. counted in `ragwatch_kafka_connection_errors_total`). Must not throw. */
  onError?: (cause: KafkaErrorCause) => void;
  /** Names the member in log lines, e.g. `span consumer`. */
  name: string;
  logger: Logger;
}

/** A consumer-group member that rejoins after crashes; `consumer` is the current kafkajs consumer. */
export class KafkaGroupMember {
  readonly #o: KafkaGroupMemberOptions;
  #consumer: Consumer | undefined;
  #running = false;
  #stopped = false;
  #shutdown: Promise<void> | undefined;
  /** The partitions of the last assignment and since when each is held: claimed again by the next join, also after a crash. */
  #owned: PartitionClaim[] = [];
  readonly #assigners;

  constructor(options: KafkaGroupMemberOptions) {
    this.#o = options;
    this.#assigners = [stickyAssigner(() => this.#owned), PartitionAssigners.roundRobin];
  }

  /** The current kafkajs consumer (commit, pause, resume through it); undefined between a crash and the rejoin. */
  get consumer(): Consumer | undefined {
    return this.#consumer;
  }

  /** True while joined and consuming. */
  get running(): boolean {
    return this.#running;
  }

  /** Joins the group and starts consuming; resolves once running (or stopped). */
  start(): Promise<void> {
    // Bounded codecs; every fetch of this member's consumers runs in the async context that carries its limit.
    useReadCodecs();
    return withBatchLimit(this.#o.batchLimit ?? { maxBytes: this.#o.consumer.maxBatchBytes, key: 'transport.kafka.consumer.maxBatchBytes' }, () => this.#join());
  }

  /** Says once per refused record batch where it was and why, then hands the batch on (its records go to the DLQ or are counted). */
  #eachBatch = (payload: EachBatchPayload): Promise<void> => {
    let last: string | undefined;
    for (const message of payload.batch.messages) {
      const refused = refusalOf(message);
      if (!refused || refused.error === last) continue;
      last = refused.error;
      const { topic, partition } = payload.batch;
      this.#o.logger.warn({ topic, partition, offsets: refused.offsets, reason: refused.reason, err: refused.error }, `${this.#o.name}: a record batch of ${topic}[${partition}] at offsets ${refused.offsets} was not decompressed; its records are refused and the partition moves on`);
    }
    return this.#o.eachBatch(payload);
  };

  async #join(): Promise<void> {
    const { kafka, groupId, topic, logger, name } = this.#o;
    const c = this.#o.consumer;
    for (let attempt = 1; !this.#stopped; attempt++) {
      const consumer = kafka.consumer({
        groupId,
        sessionTimeout: c.sessionTimeoutMs,
        heartbeatInterval: c.heartbeatIntervalMs,
        maxBytesPerPartition: c.maxBytesPerPartition,
        maxWaitTimeInMs: c.fetchMaxWaitMs,
        ...(this.#o.maxBytes === undefined ? {} : { maxBytes: this.#o.maxBytes }),
        allowAutoTopicCreation: true,
        partitionAssigners: this.#assigners,
      });
      consumer.on(consumer.events.GROUP_JOIN, (event) => {
        if (this.#consumer !== consumer) return;
        this.#remember(event.payload.memberAssignment);
        this.#o.onAssignment(event.payload.memberAssignment[topic] ?? [], false);
      });
      consumer.on(consumer.events.REBALANCING, () => {
        if (this.#consumer === consumer) this.#o.onRebalancing?.();
      });
      consumer.on(consumer.events.CRASH, (event) => {
        if (event.payload.restart || this.#stopped || this.#consumer !== consumer) return;
        logger.warn({ err: errorMessage(event.payload.error), group: groupId }, `${name} crashed; rejoining the group`);
        this.#consumer = undefined;
        this.#running = false;
        this.#o.onAssignment([], true);
        void consumer
          .disconnect()
          .catch(() => undefined)
          .then(() => new Promise((r) => setTimeout(r, 500)))
          .then(() => (this.#stopped ? undefined : this.start()));
      });
      // Set before run(): the group join can crash before run() resolves.
      this.#consumer = consumer;
      try {
        await consumer.connect();
        await consumer.subscribe({ topics: [topic, ...(this.#o.alsoTopics ?? [])], fromBeginning: c.fromBeginning });
        await consumer.run({ autoCommit: false, eachBatchAutoResolve: false, partitionsConsumedConcurrently: this.#o.partitionsConsumedConcurrently, eachBatch: this.#eachBatch });
        // A crash during the join has already scheduled a fresh consumer.
        if (this.#consumer !== consumer) return;
        this.#running = !this.#stopped;
        if (this.#stopped) await consumer.disconnect().catch(() => undefined);
        return;
      } catch (err) {
        if (this.#consumer === consumer) this.#consumer = undefined;
        await consumer.disconnect().catch(() => undefined);
        const cause = classifyKafkaError(err);
        this.#o.onError?.(cause);
        // A refused password or certificate does not heal by itself: retry slowly, log it as an error.
        const delayMs = cause.persistent ? Math.min(30_000, 1_000 * 2 ** Math.min(attempt, 5)) : Math.min(5_000, 250 * 2 ** Math.min(attempt, 5));
        const fields = { attempt, group: groupId, reason: cause.reason, err: cause.message || errorMessage(err), hint: cause.hint, retryInMs: delayMs };
        if (cause.persistent) logger.error(fields, `${name} could not start; not ready, retrying`);
        else logger.warn(fields, `${name} could not start; retrying`);
        await new Promise((r) => setTimeout(r, delayMs));
      }
    }
  }

  /** Keeps the partitions just assigned, each with the time it has been held since (a partition held before keeps its time). */
  #remember(assignment: Record<string, number[]>): void {
    const key = (c: TopicPartition) => `${c.topic}[${c.partition}]`;
    const before = new Map(this.#owned.map((c) => [key(c), c.sinceMs]));
    const now = Date.now();
    this.#owned = Object.entries(assignment).flatMap(([topic, partitions]) => partitions.map((partition) => ({ topic, partition, sinceMs: before.get(key({ topic, partition })) ?? now })));
    // Which partitions moved at this join: a moved partition is where redeliveries (and repeats) come from.
    const after = new Set(this.#owned.map(key));
    const gained = [...after].filter((k) => !before.has(k));
    const lost = [...before.keys()].filter((k) => !after.has(k));
    if (gained.length > 0 || lost.length > 0) this.#o.logger.info({ group: this.#o.groupId, kept: after.size - gained.length, gained, lost }, `${this.#o.name}: partitions assigned`);
  }

  /** No rejoin from now on (a crash stays down); the consumer keeps its partitions until `shutdown()`. */
  halt(): void {
    this.#stopped = true;
    this.#running = false;
  }

  /** Halts and leaves the group. Idempotent. */
  shutdown(): Promise<void> {
    this.halt();
    this.#shutdown ??= (this.#consumer?.disconnect() ?? Promise.resolve()).catch(() => undefined);
    return this.#shutdown;
  }
}

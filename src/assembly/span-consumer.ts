/**
 * Assembler side of split assembly: consumer group `ragwatch-assembler` on `ragwatch.spans.v1`.
 * Partition affinity is trace affinity (records are keyed by trace id), so one member sees every
 * span of a trace whichever collector received it. Records feed capture's own assembler; a
 * partition's offset is committed only up to the first record of a trace that is still buffered,
 * and only after the triplet producer has acknowledged everything assembled before — so a restart
 * or rebalance re-reads every trace not yet turned into triplets (at-least-once; triplet ids are
 * deterministic and the scorer de-duplicates). kafkajs re-reads every assigned partition from its
 * committed offset after each rebalance, so at a rebalance — and at a graceful stop — the traces
 * still buffered are handed over (counted) and assembled from the re-read, here or by the
 * partition's next owner; re-read records of traces this assembler already assembled are skipped.
 * Bad records go to the DLQ.
 * @module
 */
import type { EachBatchPayload, Kafka, Message } from 'kafkajs';
import { fromLogRecord, fromSpanRecord, parseTraceBatch } from './span-record.ts';
import type { AssemblySink } from './types.ts';
import type { CapturedLog, CapturedSpan } from '../capture/types.ts';
import type { BufferedKafkaProducer } from '../transport/kafka-buffered-producer.ts';
import type { KafkaSection } from '../transport/kafka-client.ts';
import { KafkaGroupMember } from '../transport/kafka-group.ts';
import { dlqMessage } from '../transport/kafka-poison.ts';
import { errorMessage } from '../errors.ts';
import { silentLogger, type Logger } from '../log.ts';
import type { Instruments } from '../metrics/instruments.ts';

/** Options of {@link KafkaSpanConsumer}. */
export interface KafkaSpanConsumerOptions {
  kafka: Kafka;
  section: KafkaSection;
  instruments: Instruments;
  /** Capture, fed with decoded records. */
  sink: AssemblySink;
  /** Writes DLQ entries (acknowledged before the offsets past them are committed). */
  dlq: BufferedKafkaProducer;
  /** Resolves once every triplet assembled so far is acknowledged (or dropped, counted) by the triplet producer. */
  flushTriplets: () => Promise<void>;
  logger?: Logger;
}

/** DLQ entries held between commits, at most. */
const MAX_PENDING_DLQ = 1_000;

interface PartitionState {
  /** Trace id → offset of its first record not yet covered by a commit. */
  pending: Map<string, bigint>;
  /** Offset after the last record read. */
  next: bigint | undefined;
  committed: bigint | undefined;
  /** After a rebalance: records before this offset were read before it, and are skipped unless their trace is in `released`. */
  rereadUntil?: bigint;
  /** Traces let go at the rebalance, to be assembled again from the re-read. */
  released?: Set<string>;
}

/** Consumes span records into capture and commits what has been assembled. */
export class KafkaSpanConsumer {
  readonly #o: KafkaSpanConsumerOptions;
  readonly #logger: Logger;
  readonly #partitions = new Map<number, PartitionState>();
  #dlq: Message[] = [];
  readonly #member: KafkaGroupMember;
  #timer: NodeJS.Timeout | undefined;
  #committing: Promise<void> | undefined;
  #stopped = false;
  #shutdown: Promise<void> | undefined;

  constructor(options: KafkaSpanConsumerOptions) {
    this.#o = options;
    this.#logger = options.logger ?? silentLogger;
    const { section } = options;
    this.#member = new KafkaGroupMember({
      kafka: options.kafka,
      groupId: section.assemblerGroupId,
      topic: section.topics.spans,
      consumer: section.consumer,
      partitionsConsumedConcurrently: 4,
      eachBatch: (payload) => this.#eachBatch(payload),
      onAssignment: (partitions, crashed) => this.#onAssignment(partitions, crashed),
      onRebalancing: () => this.#rewind(),
      name: 'span consumer',
      logger: this.#logger,
    });
  }

  /** True while consuming (for `/readyz`). */
  get running(): boolean {
    return this.#member.running;
  }

  /** Joins the group and starts consuming; retries the first connection until it works or `shutdown()`, rejoins after crashes. */
  async start(): Promise<void> {
    await this.#member.start();
    if (this.#stopped || this.#timer) return;
    this.#timer = setInterval(() => void this.commit(), this.#o.section.assemblerCommitIntervalMs);
    this.#timer.unref();
  }

  /**
   * Every join re-reads the assigned partitions from their committed offsets; partitions lost are
   * another member's now. A crash keeps what was read, to skip it again after the rejoin.
   */
  #onAssignment(partitions: number[], crashed: boolean): void {
    this.#rewind();
    this.#o.instruments.kafkaAssigned.set(partitions.length);
    if (crashed) return;
    const owned = new Set(partitions);
    for (const p of this.#partitions.keys()) {
      if (owned.has(p)) continue;
      this.#partitions.delete(p);
      // The new owner exports this partition's lag: a stale series here would count it twice.
      this.#o.instruments.assemblerLag.remove({ partition: String(p) });
    }
  }

  /**
   * Hands over every trace still buffered — it is re-read from the committed offset, which never
   * passes its first record, here or by the partition's next owner — and remembers how far each
   * partition was read, so that re-read records of traces already assembled here are skipped
   * rather than counted late. Idempotent.
   */
  #rewind(why = 'group rebalancing'): void {
    const { sink, instruments } = this.#o;
    const letGo: string[] = [];
    for (const state of this.#partitions.values()) {
      for (const traceId of state.pending.keys()) {
        if (!sink.isBuffered(traceId)) continue;
        letGo.push(traceId);
        (state.released ??= new Set()).add(traceId);
      }
      state.pending.clear();
      if (state.next !== undefined && (state.rereadUntil === undefined || state.next > state.rereadUntil)) state.rereadUntil = state.next;
      state.next = undefined;
    }
    if (letGo.length === 0) return;
    const items = sink.release(letGo);
    instruments.spansHandedOver.inc(items);
    this.#logger.info({ traces: letGo.length, spans: items }, `${why}: buffered traces handed over unassembled, to be re-read from the committed offsets`);
  }

  #state(partition: number): PartitionState {
    let s = this.#partitions.get(partition);
    if (!s) this.#partitions.set(partition, (s = { pending: new Map(), next: undefined, committed: undefined }));
    return s;
  }

  async #eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, heartbeat } = payload;
    const { topic, partition } = batch;
    const { instruments, sink, section } = this.#o;
    const state = this.#state(partition);
    // One capture call per fetched batch, not per message: capture's counters and gauges are updated per call.
    const spans: CapturedSpan[] = [];
    const logs: CapturedLog[] = [];
    for (const message of batch.messages) {
      if (this.#stopped) break;
      const offset = BigInt(message.offset);
      const record = message.value === null ? 'empty message' : parseTraceBatch(message.value);
      if (state.rereadUntil !== undefined && offset >= state.rereadUntil) state.rereadUntil = state.released = undefined;
      if (state.rereadUntil !== undefined && (typeof record === 'string' || !state.released?.has(record.traceId))) {
        // Read before the rebalance and handled then (assembled, or sent to the DLQ).
      } else if (typeof record === 'string') {
        // Bounded while the DLQ cannot be written: past the bound a bad record is counted, not kept.
        const full = this.#dlq.length >= MAX_PENDING_DLQ;
        if (!full) this.#dlq.push(dlqMessage({ message, topic, partition, error: record, stage: 'assembler', reason: 'invalid_span_record', attempts: 1, maxBytes: section.producer.maxMessageBytes }));
        instruments.dropped.inc({ stage: 'assembler', reason: full ? 'dlq_buffer_full' : 'invalid_span_record' });
      } else {
        const { traceId } = record;
        if (!state.pending.has(traceId)) state.pending.set(traceId, offset);
        for (const l of record.logs) logs.push(fromLogRecord(traceId, l));
        for (const s of record.spans) spans.push(fromSpanRecord(traceId, s));
      }
      state.next = offset + 1n;
      resolveOffset(message.offset);
    }
    if (state.next !== undefined) instruments.assemblerLag.set({ partition: String(partition) }, Math.max(0, Number(BigInt(batch.highWatermark) - state.next)));
    // Logs first: a span assembled right away still finds its content events.
    if (logs.length > 0) sink.addLogs(logs, 'kafka');
    if (spans.length > 0) sink.addSpans(spans, 'kafka');
    await heartbeat();
  }

  /**
   * Commits, per owned partition, the offset before the first record of the oldest trace still
   * buffered (or after the last record read when none is) — once the triplets of everything
   * assembled so far and the DLQ entries are acknowledged. One commit at a time.
   */
  commit(): Promise<void> {
    this.#committing ??= this.#commit().finally(() => (this.#committing = undefined));
    return this.#committing;
  }

  async #commit(): Promise<void> {
    const { sink, section, dlq, flushTriplets } = this.#o;
    const offsets: Array<{ partition: number; offset: bigint }> = [];
    for (const [partition, state] of this.#partitions) {
      let safe = state.next;
      for (const [traceId, first] of state.pending) {
        if (!sink.isBuffered(traceId)) state.pending.delete(traceId);
        else if (safe === undefined || first < safe) safe = first;
      }
      if (safe !== undefined && (state.committed === undefined || safe > state.committed)) offsets.push({ partition, offset: safe });
    }
    if (offsets.length === 0 && this.#dlq.length === 0) return;
    try {
      // Snapshot taken first: every trace it treats as assembled has its triplets sent before this flush.
      await flushTriplets();
      const entries = this.#dlq;
      this.#dlq = [];
      if (entries.length > 0) await dlq.sendNow(section.topics.dlq, entries);
      const consumer = this.#member.consumer;
      if (!consumer || offsets.length === 0) return;
      await consumer.commitOffsets(offsets.map(({ partition, offset }) => ({ topic: section.topics.spans, partition, offset: offset.toString() })));
      for (const { partition, offset } of offsets) {
        const state = this.#partitions.get(partition);
        if (state) state.committed = offset;
      }
    } catch (err) {
      // Not committed: the records are read again after a restart (at-least-once).
      this.#logger.warn({ err: errorMessage(err) }, 'span offsets not committed; will retry');
    }
  }

  /**
   * Stops fetching, commits what was assembled (a trace still buffered holds its partition's offset
   * back), hands the buffered traces over unassembled and leaves the group: the partition's next
   * owner re-reads them whole, where assembling them now would cut every trace whose other spans
   * have not arrived yet (a rolling deploy would turn them into incomplete generations). Idempotent.
   */
  shutdown(): Promise<void> {
    this.#shutdown ??= (async () => {
      this.#stopped = true;
      this.#member.halt();
      clearInterval(this.#timer);
      this.#member.consumer?.pause([{ topic: this.#o.section.topics.spans }]);
      // A commit already under way computed its offsets before the stop: one more after it.
      await this.#committing;
      await this.commit();
      this.#rewind('stopping');
      await this.#member.shutdown();
    })();
    return this.#shutdown;
  }
}

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
import { PartitionLedger } from './partition-ledger.ts';
import { fromLogRecord, fromSpanRecord, parseTraceBatch } from './span-record.ts';
import type { AssemblySink } from './types.ts';
import type { CapturedLog, CapturedSpan } from '../capture/types.ts';
import type { BufferedKafkaProducer } from '../transport/kafka-buffered-producer.ts';
import type { KafkaSection } from '../transport/kafka-client.ts';
import { KafkaGroupMember } from '../transport/kafka-group.ts';
import { dlqMessage } from '../transport/kafka-poison.ts';
import { refusalOf } from '../transport/kafka-refused-batch.ts';
import { errorMessage } from '../errors.ts';
import { silentLogger, type Logger } from '../log.ts';
import type { Instruments } from '../telemetry/instruments.ts';

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

/** Consumes span records into capture and commits what has been assembled. */
export class KafkaSpanConsumer {
  readonly #o: KafkaSpanConsumerOptions;
  readonly #logger: Logger;
  readonly #ledger: PartitionLedger;
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
    this.#ledger = new PartitionLedger({ maxTracesPerPartition: section.assemblerMaxTracesPerPartition, isBuffered: (traceId) => options.sink.isBuffered(traceId) });
    this.#member = new KafkaGroupMember({
      kafka: options.kafka,
      groupId: section.assemblerGroupId,
      topic: section.topics.spans,
      consumer: section.consumer,
      partitionsConsumedConcurrently: 4,
      eachBatch: (payload) => this.#eachBatch(payload),
      onAssignment: (partitions, crashed) => this.#onAssignment(partitions, crashed),
      onRebalancing: () => this.#rewind(),
      onError: (cause) => this.#o.instruments.kafkaConnectionErrors.inc({ reason: cause.reason }),
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
    // The new owner exports a lost partition's lag: a stale series here would count it twice.
    for (const p of this.#ledger.retain(new Set(partitions))) this.#o.instruments.assemblerLag.remove({ partition: String(p) });
  }

  /**
   * Hands over every trace still buffered — it is re-read from the committed offset, which never
   * passes its first record, here or by the partition's next owner — and remembers how far each
   * partition was read, so that re-read records of traces already assembled here are skipped
   * rather than counted late. Idempotent.
   */
  #rewind(why = 'group rebalancing'): void {
    const handOver = this.#ledger.rewind();
    if (handOver.length === 0) return;
    const items = this.#o.sink.release(handOver);
    this.#o.instruments.spansHandedOver.inc(items);
    this.#logger.info({ traces: handOver.length, spans: items }, `${why}: buffered traces handed over unassembled, to be re-read from the committed offsets`);
  }

  async #eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, heartbeat } = payload;
    const { topic, partition } = batch;
    const { instruments, sink, section } = this.#o;
    // One capture call per fetched batch, not per message: capture's counters and gauges are updated per call.
    const spans: CapturedSpan[] = [];
    const logs: CapturedLog[] = [];
    let full = 0;
    for (const message of batch.messages) {
      if (this.#stopped) break;
      // A record of a batch the codec refused (a decompression bomb, or malformed) is poison like a bad record.
      const refused = refusalOf(message);
      const record = refused ? refused.error : message.value === null ? 'empty message' : parseTraceBatch(message.value);
      const admission = this.#ledger.admit(partition, BigInt(message.offset), typeof record === 'string' ? undefined : record.traceId);
      resolveOffset(message.offset);
      if (admission === 'skip') continue;
      if (typeof record === 'string') {
        const reason = refused?.reason ?? 'invalid_span_record';
        // Bounded while the DLQ cannot be written: past the bound a bad record is counted, not kept.
        const dlqFull = this.#dlq.length >= MAX_PENDING_DLQ;
        if (!dlqFull) this.#dlq.push(dlqMessage({ message, topic, partition, error: record, stage: 'assembler', reason, attempts: 1, maxBytes: section.producer.maxMessageBytes }));
        instruments.dropped.inc({ stage: 'assembler', reason: dlqFull ? 'dlq_buffer_full' : reason });
      } else if (admission === 'full') {
        full += record.spans.length + record.logs.length;
      } else {
        const { traceId } = record;
        for (const l of record.logs) logs.push(fromLogRecord(traceId, l));
        for (const s of record.spans) spans.push(fromSpanRecord(traceId, s));
      }
    }
    const next = this.#ledger.next(partition);
    if (next !== undefined) instruments.assemblerLag.set({ partition: String(partition) }, Math.max(0, Number(BigInt(batch.highWatermark) - next)));
    if (full > 0) {
      // Received and dropped, so that received = assembled + dropped holds for the assembler too.
      instruments.spansReceived.inc({ source: 'kafka' }, full);
      instruments.dropped.inc({ stage: 'assembler', reason: 'partition_traces' }, full);
    }
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
    const { section, dlq, flushTriplets } = this.#o;
    const offsets = this.#ledger.commitable();
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
      this.#ledger.committed(offsets);
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

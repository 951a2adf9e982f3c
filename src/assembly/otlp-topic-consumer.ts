/**
 * OTLP from Kafka topics (`ingest.kafka`): a consumer group on the topics the OpenTelemetry
 * Collector's `kafka` exporter writes (`otlp_spans`, `otlp_logs`), each message decoded as one OTLP
 * export request (`otlp-message.ts`) and handed to the same ingest as OTLP/HTTP and gRPC — local
 * capture, or the span forwarder of a split-mode collector, where redaction and pseudonymisation apply
 * before anything leaves the process. Every message is accounted for like an OTLP request
 * (`transport="kafka"`): accepted, partially accepted (spans without ids counted), or refused — too
 * large or undecodable, written to the DLQ with its reason before the offset passes it. While capture is
 * nearly full the partition is paused and the message read again later (the Kafka form of a 503):
 * Kafka keeps what ragwatch cannot take yet.
 * Offsets are committed per batch once what was handed on is safe (`flush`: acknowledged on the spans
 * topic in split mode; taken by capture otherwise, as an acknowledged OTLP export is), so a crash
 * re-reads what was not (at least once).
 * @module
 */
import type { EachBatchPayload, Kafka, KafkaMessage, Message } from 'kafkajs';
import { decodeOtlpMessage, type OtlpMessageRefusal, type OtlpTopicEncoding, type OtlpTopicSignal } from './otlp-message.ts';
import type { SpanIngest } from './types.ts';
import type { BufferedKafkaProducer } from '../transport/kafka-buffered-producer.ts';
import type { KafkaSection } from '../transport/kafka-client.ts';
import { KafkaGroupMember } from '../transport/kafka-group.ts';
import { dlqMessage } from '../transport/kafka-poison.ts';
import { errorMessage } from '../errors.ts';
import { silentLogger, type Logger } from '../log.ts';
import type { Instruments } from '../telemetry/instruments.ts';

/** What happened to one message, in the terms of an OTLP request (`ragwatch_ingest_requests_total{transport="kafka"}`). */
export interface OtlpTopicOutcome {
  signal: OtlpTopicSignal;
  status: 200 | 400 | 413 | 415 | 503;
  reason: 'ok' | 'partial' | 'invalid' | 'too_large' | 'unsupported_media_type' | 'saturated';
  accepted: number;
  rejected: number;
}

/** Options of {@link OtlpTopicConsumer}. */
export interface OtlpTopicConsumerOptions {
  kafka: Kafka;
  groupId: string;
  topics: { traces: readonly string[]; logs: readonly string[] };
  encoding: OtlpTopicEncoding;
  maxMessageBytes: number;
  /** Largest record batch decompressed, bytes (`ingest.kafka.maxBatchBytes`); a bigger one goes to the DLQ record by record. */
  maxBatchBytes: number;
  /** Session, heartbeat and fetch settings (`transport.kafka.consumer`), with `fromBeginning` from `ingest.kafka.initialOffset`. */
  consumer: KafkaSection['consumer'];
  partitionsConsumedConcurrently: number;
  /** Where decoded spans and logs go (the pipeline's ingest). Must not throw. */
  sink: SpanIngest;
  /** Writes DLQ entries (acknowledged before the offsets past them are committed). */
  dlq: BufferedKafkaProducer;
  dlqTopic: string;
  /** Largest DLQ value written, bytes (bigger originals are cut to half of it). */
  dlqMaxBytes: number;
  /** Resolves true once everything handed to `sink` so far is safe to commit past; false holds the commit back. */
  flush: () => Promise<boolean>;
  /** Why the pipeline cannot take more now (capture nearly full), or undefined. */
  saturation?: () => string | undefined;
  /** Told about every message (metrics). Must not throw. */
  onOutcome?: (outcome: OtlpTopicOutcome) => void;
  instruments: Instruments;
  /** How long a partition stays paused while the pipeline is saturated, milliseconds. Default 1000. */
  pauseMs?: number;
  logger?: Logger;
}

const STATUS: Record<OtlpMessageRefusal, { status: 400 | 413 | 415; reason: OtlpTopicOutcome['reason'] }> = {
  invalid_otlp: { status: 400, reason: 'invalid' },
  too_large: { status: 413, reason: 'too_large' },
  unsupported_content_type: { status: 415, reason: 'unsupported_media_type' },
  batch_too_large: { status: 413, reason: 'too_large' },
  bad_compression: { status: 400, reason: 'invalid' },
};

/** Messages processed between heartbeats within one batch. */
const HEARTBEAT_EVERY = 100;

/** Consumes OTLP topics into the pipeline's ingest. */
export class OtlpTopicConsumer {
  readonly #o: OtlpTopicConsumerOptions;
  readonly #logger: Logger;
  readonly #signals = new Map<string, OtlpTopicSignal>();
  readonly #member: KafkaGroupMember;
  readonly #pauseTimers = new Set<NodeJS.Timeout>();
  /** `topic|partition` with a lag series exported. */
  readonly #lagSeries = new Set<string>();
  #stopped = false;
  #shutdown: Promise<void> | undefined;

  constructor(options: OtlpTopicConsumerOptions) {
    this.#o = options;
    this.#logger = options.logger ?? silentLogger;
    for (const t of options.topics.traces) this.#signals.set(t, 'traces');
    for (const t of options.topics.logs) this.#signals.set(t, 'logs');
    const [first, ...rest] = this.#signals.keys();
    if (first === undefined) throw new Error('OtlpTopicConsumer needs at least one topic');
    this.#member = new KafkaGroupMember({
      kafka: options.kafka,
      groupId: options.groupId,
      topic: first,
      alsoTopics: rest,
      consumer: options.consumer,
      maxBytes: Math.max(options.consumer.maxBytesPerPartition * 4, 2 * options.maxMessageBytes),
      batchLimit: { maxBytes: options.maxBatchBytes, key: 'ingest.kafka.maxBatchBytes' },
      partitionsConsumedConcurrently: options.partitionsConsumedConcurrently,
      eachBatch: (payload) => this.#eachBatch(payload),
      // Lag series are set again at each partition's next commit: a lost partition's is its new owner's.
      onAssignment: () => this.#clearLag(),
      name: 'OTLP topic consumer',
      logger: this.#logger,
    });
  }

  /** True while joined and consuming (for `/readyz`). */
  get running(): boolean {
    return this.#member.running;
  }

  /** Joins the group; retries the first connection until it works or `shutdown()`, rejoins after crashes. */
  start(): Promise<void> {
    // The member registers the bounded codecs: other producers compress with snappy, lz4 or zstd too.
    return this.#member.start();
  }

  /** Stops fetching, lets the current batches finish and commit, leaves the group. Idempotent. */
  shutdown(): Promise<void> {
    this.#shutdown ??= (async () => {
      this.#stopped = true;
      for (const t of this.#pauseTimers) clearTimeout(t);
      if (this.#pauseTimers.size > 0) this.#o.instruments.kafkaPaused.dec(this.#pauseTimers.size);
      this.#pauseTimers.clear();
      await this.#member.shutdown();
      this.#clearLag();
    })();
    return this.#shutdown;
  }

  #clearLag(): void {
    for (const key of this.#lagSeries) {
      const [topic, partition] = key.split('|') as [string, string];
      this.#o.instruments.kafkaConsumerLag.remove({ topic, partition });
    }
    this.#lagSeries.clear();
  }

  async #eachBatch(payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset, heartbeat, isRunning, isStale } = payload;
    const { topic, partition } = batch;
    const o = this.#o;
    const signal = this.#signals.get(topic) ?? 'traces';
    const dlq: Message[] = [];
    let last: string | undefined;
    let saturated: string | undefined;
    let n = 0;
    for (const message of batch.messages) {
      if (this.#stopped || !isRunning() || isStale()) break;
      saturated = o.saturation?.();
      if (saturated !== undefined) {
        o.onOutcome?.({ signal, status: 503, reason: 'saturated', accepted: 0, rejected: 0 });
        break;
      }
      const entry = this.#handle(topic, partition, signal, message);
      if (entry) dlq.push(entry);
      last = message.offset;
      resolveOffset(message.offset);
      if (++n % HEARTBEAT_EVERY === 0) await heartbeat();
    }
    if (last !== undefined) await this.#commit(topic, partition, last, dlq, batch.highWatermark, isRunning);
    if (saturated !== undefined && !this.#stopped) this.#pause(topic, partition, saturated);
    await heartbeat();
  }

  /** Decodes one message and hands it on; returns its DLQ entry when it cannot be. */
  #handle(topic: string, partition: number, signal: OtlpTopicSignal, message: KafkaMessage): Message | undefined {
    const o = this.#o;
    const decoded = decodeOtlpMessage(message, signal, o.encoding, o.maxMessageBytes);
    if (!decoded.ok) {
      const { status, reason } = STATUS[decoded.reason];
      o.onOutcome?.({ signal, status, reason, accepted: 0, rejected: 0 });
      o.instruments.dlq.inc({ stage: 'ingest', reason: decoded.reason });
      return dlqMessage({ topic, partition, message, stage: 'ingest', reason: decoded.reason, error: decoded.error, attempts: 1, maxBytes: o.dlqMaxBytes });
    }
    const accepted = decoded.spans.length + decoded.logs.length;
    // Logs first: a span assembled right away still finds its content events.
    if (decoded.logs.length > 0) o.sink.addLogs(decoded.logs, 'otlp');
    if (decoded.spans.length > 0) o.sink.addSpans(decoded.spans, 'otlp');
    o.onOutcome?.({ signal, status: 200, reason: decoded.rejected > 0 ? 'partial' : 'ok', accepted, rejected: decoded.rejected });
    return undefined;
  }

  /**
   * Commits past `offset` once what was handed on is safe and the DLQ entries are acknowledged. A
   * flush that is not complete holds the commit back: the next batch's commit covers this one too.
   */
  async #commit(topic: string, partition: number, offset: string, dlq: Message[], highWatermark: string, isRunning: () => boolean): Promise<void> {
    const o = this.#o;
    for (let attempt = 1; dlq.length > 0; attempt++) {
      try {
        await o.dlq.sendNow(o.dlqTopic, dlq);
        break;
      } catch (err) {
        o.instruments.kafkaProduceErrors.inc({ topic: o.dlqTopic });
        // Not committed: the messages are read again by this partition's next owner.
        if (this.#stopped || !isRunning()) return;
        if (attempt === 1) this.#logger.warn({ topic: o.dlqTopic, err: errorMessage(err) }, 'DLQ write failed; offset not committed, retrying');
        await new Promise((r) => setTimeout(r, Math.min(2_000, 100 * 2 ** Math.min(attempt, 5))));
      }
    }
    if (!(await o.flush().catch(() => false))) return;
    const next = (BigInt(offset) + 1n).toString();
    try {
      await this.#member.consumer?.commitOffsets([{ topic, partition, offset: next }]);
    } catch (err) {
      this.#logger.warn({ topic, partition, err: errorMessage(err) }, 'OTLP topic offsets not committed; the next batch retries');
      return;
    }
    o.instruments.kafkaConsumerLag.set({ topic, partition: String(partition) }, Math.max(0, Number(BigInt(highWatermark) - BigInt(next))));
    this.#lagSeries.add(`${topic}|${partition}`);
  }

  /** Pauses a partition while the pipeline is saturated; it is read again from the first message not handed on. */
  #pause(topic: string, partition: number, why: string): void {
    const consumer = this.#member.consumer;
    if (!consumer) return;
    consumer.pause([{ topic, partitions: [partition] }]);
    this.#o.instruments.kafkaPaused.inc();
    this.#logger.debug({ topic, partition, why }, 'pipeline saturated: OTLP topic partition paused');
    const timer = setTimeout(() => {
      this.#pauseTimers.delete(timer);
      this.#o.instruments.kafkaPaused.dec();
      if (!this.#stopped) consumer.resume([{ topic, partitions: [partition] }]);
    }, this.#o.pauseMs ?? 1_000);
    timer.unref();
    this.#pauseTimers.add(timer);
  }
}

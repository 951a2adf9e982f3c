/**
 * `ingest.kafka` in a role (`ragwatch start`, `ragwatch collector`): the OTLP topics of the
 * Collector's kafka exporter consumed into the role's pipeline, beside the OTLP/HTTP and gRPC servers
 * and with their accounting (`transport="kafka"`). In `start` the spans reach local capture; in a
 * split-mode collector they are redacted and forwarded to the spans topic like OTLP ones, so any number
 * of collectors can share the group (a trace whose spans land on different partitions is still
 * assembled by one assembler).
 * @module
 */
import { OtlpTopicConsumer } from '../assembly/otlp-topic-consumer.ts';
import type { CapturedSpan } from '../capture/types.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import { ConfigError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { recordIngestOutcome } from '../server/ingest-metrics.ts';
import { BufferedKafkaProducer } from '../transport/kafka-buffered-producer.ts';
import { createKafka, type KafkaSection } from '../transport/kafka-client.ts';
import type { Pipeline } from './pipeline.ts';

/** A split-mode collector stops reading when its spans-topic buffer is this full (it would drop the newest). */
const FORWARDER_FULL = 0.9;

/** The running OTLP topic consumer of a role. */
export interface OtlpTopicIngest {
  consumer: OtlpTopicConsumer;
  /** Joins the group in the background (retrying until the cluster answers). */
  start(): void;
  /** Stops fetching, commits, leaves the group, stops the DLQ producer. Idempotent. */
  shutdown(): Promise<void>;
}

/** The Kafka connection of `ingest.kafka`: its own brokers (with its tls/sasl), else `transport.kafka`'s. */
export function otlpTopicConnection(config: RagwatchConfig): KafkaSection {
  const ingest = config.ingest.kafka;
  const section: KafkaSection = ingest.brokers ? { ...config.transport.kafka, brokers: ingest.brokers, tls: ingest.tls, sasl: ingest.sasl } : config.transport.kafka;
  if (section.brokers.length === 0) {
    throw new ConfigError('config key "ingest.kafka.brokers": ingest.kafka is enabled but names no brokers, and transport.kafka.brokers (env RAGWATCH_KAFKA_BROKERS) is empty too', ['ingest.kafka.brokers']);
  }
  return section;
}

/**
 * The OTLP topic consumer for `config.ingest.kafka` feeding `pipeline`, or undefined when it is off.
 * `saturation` is the role's own test of a nearly full capture buffer (shared with the OTLP servers);
 * `onSpans` also sees every span read (the role's feedback reader, as for OTLP/HTTP and gRPC).
 */
export function createOtlpTopicIngest(config: RagwatchConfig, pipeline: Pipeline, logger: Logger, saturation: () => string | undefined, onSpans?: (spans: readonly CapturedSpan[]) => void): OtlpTopicIngest | undefined {
  const ingest = config.ingest.kafka;
  if (!ingest.enabled) return undefined;
  const section = otlpTopicConnection(config);
  const kafka = createKafka(section, logger, '-otlp');
  const dlqTopic = ingest.topics.dlq ?? config.transport.kafka.topics.dlq;
  const dlq = new BufferedKafkaProducer({ kafka, topic: dlqTopic, compression: section.producer.compression, requestTimeoutMs: section.producer.requestTimeoutMs, logger });
  const { forwarder } = pipeline;
  const graceMs = config.server.shutdownGraceMs;
  const forwarderMax = config.transport.kafka.producer.maxBufferMessages;
  const consumer = new OtlpTopicConsumer({
    kafka,
    groupId: ingest.groupId,
    topics: ingest.topics,
    encoding: ingest.encoding,
    maxMessageBytes: ingest.maxMessageBytes,
    maxBatchBytes: ingest.maxBatchBytes,
    consumer: { ...section.consumer, fromBeginning: ingest.initialOffset === 'earliest' },
    partitionsConsumedConcurrently: ingest.partitionsConsumedConcurrently,
    sink: {
      addSpans: (spans, source) => {
        pipeline.ingestSpans(spans, source);
        onSpans?.(spans);
      },
      addLogs: (logs, source) => pipeline.ingestLogs(logs, source) },
    dlq,
    dlqTopic,
    dlqMaxBytes: section.producer.maxMessageBytes,
    // Split mode: past a message only once its span records are acknowledged on the spans topic.
    // Local capture: once capture holds them, as for an acknowledged OTLP export.
    flush: forwarder
      ? async () => {
          await forwarder.forceFlush(graceMs);
          return forwarder.depth === 0;
        }
      : () => Promise.resolve(true),
    saturation: () => saturation() ?? (forwarder && forwarder.depth >= FORWARDER_FULL * forwarderMax ? `spans-topic producer buffer ${forwarder.depth} of transport.kafka.producer.maxBufferMessages ${forwarderMax}` : undefined),
    onOutcome: (o) => recordIngestOutcome(pipeline.instruments, { endpoint: o.signal === 'traces' ? '/v1/traces' : '/v1/logs', transport: 'kafka', status: o.status, reason: o.reason, accepted: o.accepted, rejected: o.rejected }),
    instruments: pipeline.instruments,
    logger,
  });
  let stopping: Promise<void> | undefined;
  return {
    consumer,
    start: () => {
      consumer.start().then(
        () => logger.info({ group: ingest.groupId, traces: ingest.topics.traces, logs: ingest.topics.logs, brokers: section.brokers }, 'reading OTLP from Kafka topics'),
        (err: unknown) => logger.error({ err }, 'OTLP topic consumer failed to start'),
      );
    },
    shutdown: () =>
      (stopping ??= (async () => {
        await consumer.shutdown();
        await dlq.shutdown(1_000);
      })()),
  };
}

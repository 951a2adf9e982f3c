import { z } from 'zod';
import { kafkaSasl, kafkaTls } from './transport.ts';

/** A Kafka topic name (Kafka's own rule: 1–249 of `[a-zA-Z0-9._-]`). */
const topicName = z.string().regex(/^[a-zA-Z0-9._-]{1,249}$/, 'a Kafka topic name (1-249 of a-z A-Z 0-9 . _ -)');

/**
 * OTLP read from Kafka topics: the OpenTelemetry Collector's `kafka` exporter (or any producer of OTLP
 * export requests) writes traces to `otlp_spans` and logs to `otlp_logs`; ragwatch consumes them in a
 * consumer group of its own and feeds the same capture as OTLP/HTTP and gRPC (docs/ingest.md, "From a
 * Kafka topic").
 */
const kafkaIngest = z
  .object({
    /** Consume the topics below (`ragwatch start` and `ragwatch collector`). Default false. */
    enabled: z.boolean().default(false),
    /**
     * Bootstrap brokers of the cluster holding the OTLP topics. Unset: the cluster of
     * `transport.kafka` — its brokers, clientId, TLS, SASL and timeouts — and `tls`/`sasl` below are
     * ignored. Set: that cluster, with `tls` and `sasl` below. Default unset.
     */
    brokers: z.array(z.string().min(1)).min(1).optional(),
    /** TLS to `brokers` (only with `brokers` set); default off. */
    tls: kafkaTls.prefault({}),
    /** SASL to `brokers` (only with `brokers` set); default none. */
    sasl: kafkaSasl.optional(),
    /** Consumer group of ragwatch's OTLP readers (one group for every replica: each message is read once). Default `ragwatch-otlp`. */
    groupId: z.string().min(1).default('ragwatch-otlp'),
    topics: z
      .object({
        /** Topics of OTLP trace export requests (the Collector kafka exporter's `traces.topic`). Default `[otlp_spans]`. */
        traces: z.array(topicName).default(['otlp_spans']),
        /**
         * Topics of OTLP logs export requests (`logs.topic`, the Collector's default `otlp_logs`): needed
         * only when the GenAI instrumentation puts content in log events (OTel genai `event_only`). Every
         * record of these topics is decoded, so point it at a topic that carries GenAI events, not every
         * application log. Default none.
         */
        logs: z.array(topicName).default([]),
        /** Messages that cannot be decoded (original bytes + `error`, `stage=ingest`, `reason` headers). Default: `transport.kafka.topics.dlq`. */
        dlq: topicName.optional(),
      })
      .strict()
      .prefault({}),
    /**
     * `auto` (a `content-type` header when the producer sets one, else a value starting with `{` is
     * OTLP/JSON and anything else protobuf), `otlp_proto` or `otlp_json` (the exporter's `encoding`).
     * Default auto.
     */
    encoding: z.enum(['auto', 'otlp_proto', 'otlp_json']).default('auto'),
    /** Largest message value decoded, bytes; larger ones go to the DLQ (`reason=too_large`). Default 4194304 (4 MiB). */
    maxMessageBytes: z.number().int().positive().default(4 * 1024 * 1024),
    /**
     * Largest record batch decompressed, bytes (a batch holds several messages; gzip, snappy, lz4 and zstd
     * alike): a batch that would inflate past it — a decompression bomb — or cannot be decompressed goes to
     * the DLQ record by record (`reason=batch_too_large` / `bad_compression`), and the partition moves on.
     * At least `maxMessageBytes`. Default 67108864 (64 MiB).
     */
    maxBatchBytes: z.number().int().positive().default(64 * 1024 * 1024),
    /** Where a group without committed offsets starts: `latest` (only new messages, the Collector kafkareceiver's default) or `earliest`. Default latest. */
    initialOffset: z.enum(['latest', 'earliest']).default('latest'),
    /** Partitions processed at once. Default 2. */
    partitionsConsumedConcurrently: z.number().int().positive().max(64).default(2),
  })
  .strict()
  .refine((k) => k.maxBatchBytes >= k.maxMessageBytes, { message: 'maxBatchBytes must be at least maxMessageBytes (a batch holds whole messages)', path: ['maxBatchBytes'] })
  .refine((k) => !k.enabled || k.topics.traces.length + k.topics.logs.length > 0, { message: 'ingest.kafka is enabled but lists no topic (topics.traces, topics.logs)', path: ['topics'] })
  .refine((k) => k.sasl?.mechanism !== 'plain' || k.tls.enabled, { message: 'SASL PLAIN sends the password in clear: enable tls', path: ['sasl'] })
  .refine((k) => k.brokers !== undefined || (k.sasl === undefined && !k.tls.enabled), { message: 'tls and sasl here apply to ingest.kafka.brokers only; without brokers the transport.kafka connection (and its tls/sasl) is used', path: ['brokers'] });

/** Ingest sources besides the OTLP servers (`server.*`). */
export const ingestSection = z
  .object({
    /** OTLP export requests read from Kafka topics (the Collector's kafka exporter). */
    kafka: kafkaIngest.prefault({}),
  })
  .strict();

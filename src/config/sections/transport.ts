import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** A PEM file path, read once at load time (the config module is the only place that reads files). */
const pemFile = z.string().min(1).transform((path, ctx) => {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `cannot read ${path}: ${(err as Error).message}` });
    return z.NEVER;
  }
});

/** TLS to Kafka brokers (`transport.kafka.tls`, `ingest.kafka.tls`). */
export const kafkaTls = z
  .object({
    /** Connect with TLS. Default false. */
    enabled: z.boolean().default(false),
    /** CA bundle (PEM file path); default: Node's trust store (plus NODE_EXTRA_CA_CERTS). */
    caFile: pemFile.optional(),
    /** Client certificate (PEM file path) for mutual TLS. */
    certFile: pemFile.optional(),
    /** Client key (PEM file path) for mutual TLS. */
    keyFile: pemFile.optional(),
    /** Server name for SNI/verification when it differs from the broker host. */
    servername: z.string().optional(),
  })
  .strict()
  .refine((t) => (t.certFile === undefined) === (t.keyFile === undefined), { message: 'mutual TLS needs both certFile and keyFile', path: ['keyFile'] })
  .refine((t) => t.enabled || (t.caFile === undefined && t.certFile === undefined), { message: 'caFile/certFile/keyFile are set but TLS is off: set enabled: true', path: ['enabled'] });

/** SASL to Kafka brokers (`transport.kafka.sasl`, `ingest.kafka.sasl`). */
export const kafkaSasl = z
  .object({
    /** `plain`, `scram-sha-256` or `scram-sha-512`; PLAIN requires TLS. */
    mechanism: z.enum(['plain', 'scram-sha-256', 'scram-sha-512']),
    /** SASL user name. */
    username: z.string().min(1),
    /** Password (env RAGWATCH_KAFKA_SASL_PASSWORD); never printed. */
    password: z.string().min(1),
  })
  .strict();

const producer = z
  .object({
    /** Messages buffered while waiting for Kafka; beyond it the newest are dropped (counted). Default 10000. */
    maxBufferMessages: z.number().int().positive().default(10_000),
    /** Largest message (encoded triplet) sent, bytes; larger ones are dropped (counted). Default 1048576. */
    maxMessageBytes: z.number().int().positive().default(1024 * 1024),
    /** Most messages per `sendBatch`. Default 500. */
    batchMaxMessages: z.number().int().positive().default(500),
    /** Linger: longest a message waits for its batch to fill, milliseconds. Default 20. */
    lingerMs: z.number().int().nonnegative().default(20),
    /** `gzip` (built into kafkajs) or `none`. Default gzip. */
    compression: z.enum(['gzip', 'none']).default('gzip'),
    /**
     * gzip level of the triplets producer, 1 (fastest) to 9 (smallest). Default 1: on triplet JSON
     * it costs ~40 % of the CPU of zlib's default 6 for batches ~15 % larger (docs/kafka.md).
     */
    gzipLevel: z.number().int().min(1).max(9).default(1),
    /** Broker acknowledgement timeout per request, milliseconds. Default 10000. */
    requestTimeoutMs: z.number().int().positive().default(10_000),
    /**
     * Idempotent producer (Kafka's own client default since 3.0): retries keep their sequence numbers,
     * so the broker writes a batch once even when an acknowledgement was lost in a failover. Needs
     * WRITE on the topic (Kafka ≥ 3.0; older brokers the IDEMPOTENT_WRITE cluster ACL). Default true.
     */
    idempotent: z.boolean().default(true),
    /**
     * How long a failed batch is retried inside the idempotent producer (same sequence numbers: no
     * duplicates) before it goes back to the buffer and is sent as new records, milliseconds. Longer
     * than a failover (the controller fences a dead broker after its session timeout, 9 s by
     * default). Default 30000.
     */
    retryWindowMs: z.number().int().positive().default(30_000),
    /** Longest backoff between retries of a failed batch, milliseconds. Default 2000. */
    maxRetryBackoffMs: z.number().int().positive().default(2_000),
  })
  .strict();

const consumer = z
  .object({
    /** Consumer session timeout, milliseconds (a dead scorer's partitions move after this). Default 30000. */
    sessionTimeoutMs: z.number().int().positive().default(30_000),
    /** Heartbeat interval, milliseconds. Default 3000. */
    heartbeatIntervalMs: z.number().int().positive().default(3_000),
    /** Largest triplet message accepted, bytes; larger ones go to the DLQ. Default 1048576. */
    maxMessageBytes: z.number().int().positive().default(1024 * 1024),
    /** Fetch limit per partition, bytes; must exceed maxMessageBytes so a big message never stalls a fetch. Default 4194304. */
    maxBytesPerPartition: z.number().int().positive().default(4 * 1024 * 1024),
    /**
     * Largest record batch a consumer of ragwatch's topics decompresses, bytes (gzip, snappy, lz4, zstd):
     * a batch that would inflate past it (a decompression bomb), or cannot be decompressed, goes to the
     * DLQ record by record (`reason=batch_too_large` / `bad_compression`) and the partition moves on.
     * Default 67108864 (64 MiB).
     */
    maxBatchBytes: z.number().int().positive().default(64 * 1024 * 1024),
    /** Triplet ids remembered for de-duplication, milliseconds. Default 600000 (10 min). */
    dedupeWindowMs: z.number().int().nonnegative().default(600_000),
    /** Most triplet ids remembered for de-duplication. Default 100000. */
    dedupeMaxEntries: z.number().int().positive().default(100_000),
    /** Judge attempts per triplet on retriable failures (429/5xx) before it goes to the DLQ. Default 3. */
    maxAttempts: z.number().int().positive().default(3),
    /** Pause of a partition after a retriable failure without Retry-After, milliseconds. Default 5000. */
    retryBackoffMs: z.number().int().positive().default(5_000),
    /** Longest a fetch waits for new messages, milliseconds (also bounds how long shutdown waits). Default 1000. */
    fetchMaxWaitMs: z.number().int().positive().default(1_000),
    /** Read the topic from the beginning when the group has no committed offset. Default true. */
    fromBeginning: z.boolean().default(true),
  })
  .strict()
  .refine((c) => c.maxBatchBytes >= c.maxMessageBytes, { message: 'maxBatchBytes must be at least maxMessageBytes (a batch holds whole messages)', path: ['maxBatchBytes'] });

/** Transport between capture/sampling and the scorer. */
export const transportSection = z
  .object({
    /**
     * `memory` (one process, the embedded default), `kafka` (collector/scorer split) or `http` (the
     * in-process plugin forwards sampled triplets to a ragwatch process, `transport.http.endpoint`).
     * The plugin forwards whenever an endpoint is set and the kind is left at memory. Default memory.
     */
    kind: z.enum(['memory', 'kafka', 'http']).default('memory'),
    /** Forwarding sampled triplets over HTTP to `ragwatch start` (the in-process plugin's light mode, docs/capture.md). */
    http: z
      .object({
        /** Base URL of a ragwatch process's ingest port, e.g. `http://ragwatch:4318` (env RAGWATCH_ENDPOINT); triplets go to `/v1/ragwatch/triplets`. */
        endpoint: z.string().regex(/^https?:\/\/[^\s]+$/, 'an http(s) URL').optional(),
        /** Bearer token of that process's ingest (`server.bearerToken` there; env RAGWATCH_ENDPOINT_TOKEN). */
        bearerToken: z.string().min(16).optional(),
        /** Sampled triplets waiting to be sent; beyond it the newest are dropped (counted). Default 1000. */
        maxBufferTriplets: z.number().int().positive().default(1_000),
        /** Most triplets per request. Default 100. */
        batchMaxTriplets: z.number().int().positive().max(1_000).default(100),
        /** Longest a triplet waits for its batch, milliseconds. Default 1000. */
        lingerMs: z.number().int().positive().default(1_000),
        /** Per-request timeout, milliseconds. Default 10000. */
        timeoutMs: z.number().int().positive().default(10_000),
        /** Longest wait before retrying a refused (429/503, honouring Retry-After) or failed request, milliseconds. Default 30000. */
        maxRetryBackoffMs: z.number().int().positive().default(30_000),
      })
      .strict()
      .prefault({}),
    /** In-memory queue bound; when full the newest triplet is dropped (counted). Default 1000. */
    maxQueueSize: z.number().int().positive().default(1_000),
    kafka: z
      .object({
        /** Bootstrap brokers, `host:port` (env RAGWATCH_KAFKA_BROKERS, comma-separated). Default none. */
        brokers: z.array(z.string().min(1)).default([]),
        /** Client id sent to the brokers. Default `ragwatch`. */
        clientId: z.string().default('ragwatch'),
        /** Consumer group of the scorers. Default `ragwatch-scorer`. */
        groupId: z.string().default('ragwatch-scorer'),
        /**
         * Where `ragwatch collector` assembles traces: `spans_topic` (default) produces compact redacted
         * span records to `topics.spans` for `ragwatch assembler`, correct with any number of collectors;
         * `local` assembles in the collector — only correct when one collector receives every span of a
         * trace (a single replica).
         */
        assembly: z.enum(['spans_topic', 'local']).default('spans_topic'),
        /** Consumer group of the assemblers (`ragwatch assembler`). Default `ragwatch-assembler`. */
        assemblerGroupId: z.string().default('ragwatch-assembler'),
        /** Consumer group of `ragwatch prober` reading the scores topic (its probes' score records). Default `ragwatch-prober`. */
        proberGroupId: z.string().default('ragwatch-prober'),
        /** Consumer group of `ragwatch slices` reading the scores topic (slice alerts and release verdicts over every scorer's records). Default `ragwatch-slices`. */
        slicesGroupId: z.string().default('ragwatch-slices'),
        /** How often the assembler commits the offsets of fully assembled traces, milliseconds. Default 2000. */
        assemblerCommitIntervalMs: z.number().int().positive().default(2_000),
        /**
         * Traces one spans-topic partition may hold buffered in an assembler at once; spans of further
         * new traces from that partition are dropped (counted as `partition_traces`), so one hot
         * partition cannot fill `capture.maxTraces` for the others. Default 2000.
         */
        assemblerMaxTracesPerPartition: z.number().int().positive().default(2_000),
        /**
         * Topics each role creates at start when missing (spans, triplets, scores, DLQ; the compacted
         * labels and topic-models topics get one partition), instead of leaving them to the brokers'
         * auto-creation and its defaults. Existing topics are left as they are.
         */
        createTopics: z
          .object({
            /** Create missing topics. When false a missing topic is an error naming it. Default true. */
            enabled: z.boolean().default(true),
            /** Partitions of a created topic: the most scorer (and assembler) replicas that can share the work. Default 6. */
            partitions: z.number().int().positive().default(6),
            /** Replication factor of a created topic, capped at the cluster's broker count (logged). Default 3. */
            replicationFactor: z.number().int().positive().max(32).default(3),
          })
          .strict()
          .prefault({}),
        /** TCP connect timeout, milliseconds. Default 3000. */
        connectionTimeoutMs: z.number().int().positive().default(3_000),
        /** TLS settings; default off. */
        tls: kafkaTls.prefault({}),
        /** SASL authentication; default none. */
        sasl: kafkaSasl.optional(),
        topics: z
          .object({
            /** Compact redacted span and log records, key = trace id (collector → assembler). Default `ragwatch.spans.v1`. */
            spans: z.string().default('ragwatch.spans.v1'),
            /** Sampled triplets. Default `ragwatch.triplets.v1`. */
            triplets: z.string().default('ragwatch.triplets.v1'),
            /** Score records. Default `ragwatch.scores.v1`. */
            scores: z.string().default('ragwatch.scores.v1'),
            /** Poison and unscorable triplets (original bytes + error headers). Default `ragwatch.triplets.dlq`. */
            dlq: z.string().default('ragwatch.triplets.dlq'),
            /** Human labels with their answers' scores, shared by every scorer replica; compacted, key = triplet id + label concept. Default `ragwatch.labels.v1`. */
            labels: z.string().default('ragwatch.labels.v1'),
            /** Question-topic models, so every scorer replica (and a collector stratifying by topic) uses the same topics; compacted, key = generation + fitter. Default `ragwatch.topics.v1`. */
            topicModels: z.string().default('ragwatch.topics.v1'),
          })
          .strict()
          .prefault({}),
        producer: producer.prefault({}),
        consumer: consumer.prefault({}),
      })
      .strict()
      .refine((k) => k.sasl?.mechanism !== 'plain' || k.tls.enabled, { message: 'SASL PLAIN sends the password in clear: enable tls' })
      .prefault({}),
  })
  .strict()
  .refine((t) => t.kind !== 'kafka' || t.kafka.brokers.length > 0, { message: 'transport.kind is kafka but transport.kafka.brokers is empty', path: ['kafka', 'brokers'] });

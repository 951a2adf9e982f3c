/**
 * Kafka producer side of the transport (collector role and the in-host span processor):
 * sampled triplets → JSON → `ragwatch.triplets.v1` (key = traceId, headers `schema-version`,
 * `content-type`). `send` never blocks or throws; drops are counted and settle `in_flight`.
 * @module
 */
import type { Kafka } from 'kafkajs';
import { BufferedKafkaProducer } from './kafka-buffered-producer.ts';
import type { KafkaSection } from './kafka-client.ts';
import type { TripletProducer } from './types.ts';
import type { Logger } from '../log.ts';
import type { Instruments } from '../metrics/instruments.ts';
import { SCHEMA_VERSION, type SampledTriplet } from '../triplet.ts';

/** Options of {@link KafkaTripletProducer}. */
export interface KafkaTripletProducerOptions {
  kafka: Kafka;
  section: KafkaSection;
  instruments: Instruments;
  logger?: Logger;
}

/** Stage label of producer drops in `ragwatch_dropped_total`. */
const STAGE = 'transport';

/** Sends sampled triplets to the triplets topic through a bounded buffer. */
export class KafkaTripletProducer implements TripletProducer {
  readonly #buffered: BufferedKafkaProducer;
  readonly #instruments: Instruments;
  readonly #topic: string;
  readonly #maxBytes: number;

  constructor(options: KafkaTripletProducerOptions) {
    const { section, instruments } = options;
    const p = section.producer;
    this.#instruments = instruments;
    this.#topic = section.topics.triplets;
    this.#maxBytes = p.maxMessageBytes;
    const topic = this.#topic;
    instruments.queueCapacity.set({ stage: 'kafka_producer' }, p.maxBufferMessages);
    this.#buffered = new BufferedKafkaProducer({
      kafka: options.kafka,
      topic,
      maxBufferMessages: p.maxBufferMessages,
      batchMaxMessages: p.batchMaxMessages,
      lingerMs: p.lingerMs,
      compression: p.compression,
      requestTimeoutMs: p.requestTimeoutMs,
      maxRetryBackoffMs: p.maxRetryBackoffMs,
      ...(options.logger ? { logger: options.logger } : {}),
      onDelivered: (n) => {
        instruments.produced.inc(n);
        instruments.inFlight.dec(n);
      },
      onDropped: (n, reason) => this.#drop(n, reason),
      onSendError: () => instruments.kafkaProduceErrors.inc({ topic }),
      onDepth: (d) => {
        instruments.kafkaProducerBuffer.set({ topic }, d);
        instruments.queueSize.set({ stage: 'kafka_producer' }, d);
      },
    });
  }

  /** Messages waiting for acknowledgement. */
  get depth(): number {
    return this.#buffered.depth;
  }

  /** Connects eagerly; failures are not fatal (sending retries). */
  connect(): Promise<void> {
    return this.#buffered.connect();
  }

  send(triplet: SampledTriplet): boolean {
    let value: string;
    try {
      value = JSON.stringify(triplet);
    } catch {
      this.#drop(1, 'unserializable');
      return false;
    }
    // UTF-8 is at most 3 bytes per UTF-16 unit: only measure when the cheap bound is exceeded.
    if (value.length * 3 > this.#maxBytes && Buffer.byteLength(value) > this.#maxBytes) {
      this.#drop(1, 'too_large');
      return false;
    }
    return this.#buffered.enqueue({
      key: triplet.traceId,
      value,
      headers: { 'schema-version': SCHEMA_VERSION, 'content-type': 'application/json' },
    });
  }

  forceFlush(): Promise<void> {
    return this.#buffered.forceFlush();
  }

  /** Flushes for up to `deadlineMs` (default 5000), drops and counts the rest. Idempotent. */
  shutdown(deadlineMs?: number): Promise<void> {
    return this.#buffered.shutdown(deadlineMs);
  }

  #drop(count: number, reason: string): void {
    this.#instruments.dropped.inc({ stage: STAGE, reason }, count);
    this.#instruments.inFlight.dec(count);
  }
}

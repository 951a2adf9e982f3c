/**
 * Forwards sampled triplets over HTTP to a ragwatch process (`POST <endpoint>/v1/ragwatch/triplets`,
 * JSON, bearer token): the in-process plugin's light transport — the host captures, redacts and
 * samples; judging happens elsewhere. `send` only appends to a bounded buffer (newest dropped when
 * full, counted); batches go out through an {@link HttpPoster} (one request at a time, retries,
 * 4xx dropped by status). Delivered triplets count as produced, as Kafka's do, so the accounting
 * identity holds in the host.
 * @module
 */
import { HttpPoster } from './http-poster.ts';
import type { Instruments } from '../telemetry/instruments.ts';
import { SCHEMA_VERSION, type SampledTriplet } from '../triplet.ts';
import type { TripletProducer } from './types.ts';

/** Options of {@link HttpTripletProducer}; `endpoint` and `instruments` are required. */
export interface HttpTripletProducerOptions {
  /** Base URL of the receiving ragwatch's ingest port. */
  endpoint: string;
  bearerToken?: string | undefined;
  instruments: Pick<Instruments, 'produced' | 'dropped' | 'inFlight'>;
  /** Default 1000. */
  maxBufferTriplets?: number;
  /** Default 100. */
  batchMaxTriplets?: number;
  /** Default 1000. */
  lingerMs?: number;
  /** Default 10000. */
  timeoutMs?: number;
  /** Default 30000. */
  maxRetryBackoffMs?: number;
  /** Runs the request outside the host's tracing (the plugin's `withTracingSuppressed`). Default: as is. */
  untraced?: <T>(fn: () => T) => T;
  /** Where the first delivery problem is reported (once per producer). The plugin passes OTel's `diag.warn`, so the host's own diagnostics show it. Default: nowhere. */
  warn?: (message: string) => void;
}

/** The path triplets are posted to. */
export const FORWARD_PATH = '/v1/ragwatch/triplets';
const STAGE = 'transport';

export class HttpTripletProducer implements TripletProducer {
  readonly #poster: HttpPoster<SampledTriplet>;

  constructor(options: HttpTripletProducerOptions) {
    const { instruments } = options;
    const url = `${options.endpoint.replace(/\/+$/, '')}${FORWARD_PATH}`;
    this.#poster = new HttpPoster<SampledTriplet>({
      url,
      headers: { 'schema-version': SCHEMA_VERSION },
      bearerToken: options.bearerToken,
      encode: (batch) => JSON.stringify({ triplets: batch }),
      onDelivered: (batch) => {
        instruments.produced.inc(batch.length);
        instruments.inFlight.dec(batch.length);
      },
      onDropped: (n, reason) => {
        instruments.dropped.inc({ stage: STAGE, reason }, n);
        instruments.inFlight.dec(n);
      },
      refused: (status, n) => `ragwatch: ${url} refused ${n} triplets with ${status}; dropped (check transport.http.bearerToken and the receiver's version)`,
      fullReason: 'buffer_full',
      maxQueueItems: options.maxBufferTriplets ?? 1_000,
      batchMaxItems: options.batchMaxTriplets ?? 100,
      eager: true,
      ...(options.lingerMs !== undefined ? { lingerMs: options.lingerMs } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.maxRetryBackoffMs !== undefined ? { maxRetryBackoffMs: options.maxRetryBackoffMs } : {}),
      ...(options.untraced ? { untraced: options.untraced } : {}),
      ...(options.warn ? { warn: options.warn } : {}),
    });
  }

  /** Triplets waiting to be sent. */
  get buffered(): number {
    return this.#poster.queued;
  }

  /** Appends; false (dropped, counted) when the buffer is full or the producer stopped. Never throws, never waits. */
  send(triplet: SampledTriplet): boolean {
    return this.#poster.enqueue(triplet);
  }

  /** Sends everything buffered (waiting out refusals), up to `timeoutMs`; what is left stays buffered. */
  forceFlush(timeoutMs = 10_000): Promise<void> {
    return this.#poster.forceFlush(timeoutMs);
  }

  /** Stops accepting, flushes up to `timeoutMs`, drops (counted) what could not be sent. Idempotent. */
  shutdown(timeoutMs = 5_000): Promise<void> {
    return this.#poster.shutdown(timeoutMs);
  }
}

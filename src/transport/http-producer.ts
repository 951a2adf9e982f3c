/**
 * Forwards sampled triplets over HTTP to a ragwatch process (`POST <endpoint>/v1/ragwatch/triplets`,
 * JSON, bearer token): the in-process plugin's light transport — the host captures, redacts and
 * samples; judging happens elsewhere. `send` only appends to a bounded buffer (newest dropped when
 * full, counted); batches go out through an {@link HttpPoster} (one request at a time, retries,
 * 4xx dropped by status). Delivered triplets count as produced, as Kafka's do, so the accounting
 * identity holds in the host.
 * @module
 */
import { HttpPoster, posterSettings, type HttpPosterSettings } from './http-poster.ts';
import type { Instruments } from '../telemetry/instruments.ts';
import { SCHEMA_VERSION, type SampledTriplet } from '../triplet.ts';
import type { TripletProducer } from './types.ts';

/** Options of {@link HttpTripletProducer}; `endpoint` and `instruments` are required (the poster's settings: {@link HttpPosterSettings}). */
export interface HttpTripletProducerOptions extends Omit<HttpPosterSettings, 'maxQueueItems'> {
  /** Base URL of the receiving ragwatch's ingest port. */
  endpoint: string;
  instruments: Pick<Instruments, 'produced' | 'dropped' | 'inFlight'>;
  /** Default 1000. */
  maxBufferTriplets?: number;
  /** Default 100. */
  batchMaxTriplets?: number;
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
      ...posterSettings(options),
      url,
      headers: { 'schema-version': SCHEMA_VERSION },
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

/**
 * Forwards sampled triplets over HTTP to a ragwatch process (`POST <endpoint>/v1/ragwatch/triplets`,
 * JSON, bearer token): the in-process plugin's light transport — the host captures, redacts and
 * samples; judging happens elsewhere. `send` only appends to a bounded buffer (newest dropped when
 * full, counted); batches go out on an unref'd timer with `node:http(s)` (not `fetch`: its client
 * costs a host ~2 MB more RSS), one request at a time. A refused
 * request (429/503) waits for `Retry-After`, a failed one backs off exponentially, both up to
 * `maxRetryBackoffMs`, and keep their batch; other 4xx drop it (counted by status). Delivered
 * triplets count as produced, as Kafka's do, so the accounting identity holds in the host.
 * @module
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { errorMessage } from '../errors.ts';
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
  readonly #o: HttpTripletProducerOptions;
  readonly #url: string;
  readonly #max: number;
  readonly #batch: number;
  #buffer: SampledTriplet[] = [];
  #timer: NodeJS.Timeout | undefined;
  #sending: Promise<void> | undefined;
  #retryAtMs = 0;
  #failures = 0;
  #stopped = false;
  #warned = false;

  constructor(options: HttpTripletProducerOptions) {
    this.#o = options;
    this.#url = `${options.endpoint.replace(/\/+$/, '')}${FORWARD_PATH}`;
    this.#max = options.maxBufferTriplets ?? 1_000;
    this.#batch = options.batchMaxTriplets ?? 100;
    this.#timer = setInterval(() => void this.#pump(), options.lingerMs ?? 1_000);
    this.#timer.unref();
  }

  /** Triplets waiting to be sent. */
  get buffered(): number {
    return this.#buffer.length;
  }

  /** Appends; false (dropped, counted) when the buffer is full or the producer stopped. Never throws, never waits. */
  send(triplet: SampledTriplet): boolean {
    if (this.#stopped || this.#buffer.length >= this.#max) {
      this.#settleDropped(1, this.#stopped ? 'shutdown' : 'buffer_full');
      return false;
    }
    this.#buffer.push(triplet);
    if (this.#buffer.length >= this.#batch) void this.#pump();
    return true;
  }

  /** Sends everything buffered (waiting out refusals), up to `timeoutMs`; what is left stays buffered. */
  async forceFlush(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.#buffer.length > 0 && Date.now() < deadline) {
      await this.#pump(true);
      if (this.#buffer.length > 0) await new Promise((r) => setTimeout(r, Math.min(100, Math.max(0, this.#retryAtMs - Date.now()))).unref());
    }
  }

  /** Stops accepting, flushes up to `timeoutMs`, drops (counted) what could not be sent. Idempotent. */
  async shutdown(timeoutMs = 5_000): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.forceFlush(timeoutMs);
    await this.#sending;
    const rest = this.#buffer.length;
    this.#buffer = [];
    if (rest > 0) this.#settleDropped(rest, 'shutdown');
  }

  /** Sends batches while there are some and no retry is pending; one request at a time. */
  #pump(force = false): Promise<void> {
    if (this.#sending) return this.#sending;
    if (this.#buffer.length === 0 || (!force && Date.now() < this.#retryAtMs)) return Promise.resolve();
    if (force && Date.now() < this.#retryAtMs) return Promise.resolve();
    this.#sending = (async () => {
      try {
        while (this.#buffer.length > 0 && Date.now() >= this.#retryAtMs) {
          const batch = this.#buffer.slice(0, this.#batch);
          const outcome = await this.#post(batch);
          if (outcome === 'retry') break;
          this.#buffer.splice(0, batch.length);
        }
      } finally {
        this.#sending = undefined;
      }
    })();
    return this.#sending;
  }

  /** One request: 'done' (delivered or dropped for good) or 'retry' (kept, `#retryAtMs` set). */
  async #post(batch: SampledTriplet[]): Promise<'done' | 'retry'> {
    const o = this.#o;
    const headers: Record<string, string> = { 'content-type': 'application/json', 'schema-version': SCHEMA_VERSION };
    if (o.bearerToken) headers.authorization = `Bearer ${o.bearerToken}`;
    const untraced = o.untraced ?? ((fn) => fn());
    let res: { status: number; retryAfter: string | undefined };
    try {
      res = await untraced(() => postJson(this.#url, JSON.stringify({ triplets: batch }), headers, o.timeoutMs ?? 10_000));
    } catch (err) {
      return this.#backoff(undefined, `ragwatch: forwarding to ${this.#url} failed (${errorMessage(err)}); retrying`);
    }
    if (res.status >= 200 && res.status < 300) {
      this.#failures = 0;
      o.instruments.produced.inc(batch.length);
      o.instruments.inFlight.dec(batch.length);
      return 'done';
    }
    if (res.status === 429 || res.status === 503 || res.status >= 500) return this.#backoff(Number(res.retryAfter), `ragwatch: ${this.#url} answered ${res.status}; retrying`);
    // 4xx: the receiver will never take this batch (bad token, bad data): drop it, counted by status.
    this.#settleDropped(batch.length, `rejected_${res.status}`);
    this.#warn(`ragwatch: ${this.#url} refused ${batch.length} triplets with ${res.status}; dropped (check transport.http.bearerToken and the receiver's version)`);
    return 'done';
  }

  #backoff(retryAfterSeconds: number | undefined, message: string): 'retry' {
    this.#failures++;
    const max = this.#o.maxRetryBackoffMs ?? 30_000;
    const ms = retryAfterSeconds !== undefined && Number.isFinite(retryAfterSeconds) && retryAfterSeconds > 0 ? retryAfterSeconds * 1000 : 250 * 2 ** Math.min(this.#failures, 10);
    this.#retryAtMs = Date.now() + Math.min(max, ms);
    this.#warn(message);
    return 'retry';
  }

  #settleDropped(n: number, reason: string): void {
    this.#o.instruments.dropped.inc({ stage: STAGE, reason }, n);
    this.#o.instruments.inFlight.dec(n);
  }

  #warn(message: string): void {
    if (this.#warned) return;
    this.#warned = true;
    this.#o.warn?.(message);
  }
}

/** POSTs a JSON body; resolves with the status and Retry-After once the response is read (its body is discarded). */
export function postJson(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<{ status: number; retryAfter: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = (url.startsWith('https:') ? httpsRequest : httpRequest)(url, { method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) }, timeout: timeoutMs }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: typeof res.headers['retry-after'] === 'string' ? res.headers['retry-after'] : undefined }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The plugin's way out over HTTP, shared by the triplet forwarder and the feedback forwarder: a
 * bounded queue (newest dropped when full, counted) sent in batches on an unref'd timer with
 * `node:http(s)` (not `fetch`: its client costs a host ~2 MB more RSS), one request at a time. A
 * refused request (429, 5xx) waits for `Retry-After`, a failed one backs off exponentially, both up to
 * `maxRetryBackoffMs`, and keep their batch; other 4xx drop it (counted by status). The first
 * delivery problem is reported once through `warn`.
 * @module
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { errorMessage } from '../errors.ts';

/** The poster's settings a sender passes through from its own options (each resolved with its default here). */
export interface HttpPosterSettings {
  bearerToken?: string | undefined;
  /** Most items waiting. Default 1000. */
  maxQueueItems?: number | undefined;
  /** Send period, milliseconds. Default 1000. */
  lingerMs?: number | undefined;
  /** Default 10000. */
  timeoutMs?: number | undefined;
  /** Default 30000. */
  maxRetryBackoffMs?: number | undefined;
  /** Runs the request outside the host's tracing (the plugin's `withTracingSuppressed`). Default: as is. */
  untraced?: (<R>(fn: () => R) => R) | undefined;
  /** Where the first delivery problem is reported (once). The plugin passes OTel's `diag.warn`, so the host's own diagnostics show it. Default nowhere. */
  warn?: ((message: string) => void) | undefined;
}

/** Just the {@link HttpPosterSettings} of a sender's options. */
export function posterSettings({ bearerToken, maxQueueItems, lingerMs, timeoutMs, maxRetryBackoffMs, untraced, warn }: HttpPosterSettings): HttpPosterSettings {
  return { bearerToken, maxQueueItems, lingerMs, timeoutMs, maxRetryBackoffMs, untraced, warn };
}

/** Options of {@link HttpPoster}; `url`, `encode`, `onDelivered`, `onDropped` and `refused` are required. */
export interface HttpPosterOptions<T> extends HttpPosterSettings {
  url: string;
  /** Request headers besides `content-type` (JSON) and the bearer token. */
  headers?: Record<string, string>;
  /** The body of one batch. */
  encode: (batch: readonly T[]) => string;
  /** A batch the receiver took. Must not throw. */
  onDelivered: (batch: readonly T[]) => void;
  /** Items not delivered and why (`<fullReason>`, `shutdown`, `rejected_<status>`). Must not throw. */
  onDropped: (count: number, reason: string) => void;
  /** The warning for a batch refused for good (a 4xx). */
  refused: (status: number, count: number) => string;
  /** What the failure warnings call the traffic (`forwarding`, `forwarding feedback`). Default `forwarding`. */
  what?: string;
  /** Reason of a drop at a full queue. Default `queue_full`. */
  fullReason?: string;
  /** Most items per request. Default 1. */
  batchMaxItems?: number;
  /** Send as soon as a batch is full instead of at the next tick. Default false. */
  eager?: boolean;
}

/** A bounded queue of items POSTed in batches to one URL. */
export class HttpPoster<T> {
  readonly #o: HttpPosterOptions<T>;
  readonly #max: number;
  readonly #batch: number;
  #queue: T[] = [];
  #timer: NodeJS.Timeout | undefined;
  #sending: Promise<void> | undefined;
  #retryAtMs = 0;
  #failures = 0;
  #stopped = false;
  #warned = false;

  constructor(options: HttpPosterOptions<T>) {
    this.#o = options;
    this.#max = options.maxQueueItems ?? 1_000;
    this.#batch = options.batchMaxItems ?? 1;
    this.#timer = setInterval(() => void this.#pump(), options.lingerMs ?? 1_000);
    this.#timer.unref();
  }

  /** Items waiting to be sent. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Appends; false (dropped, counted) when the queue is full or the poster stopped. Never throws, never waits. */
  enqueue(item: T): boolean {
    if (this.#stopped || this.#queue.length >= this.#max) {
      this.#o.onDropped(1, this.#stopped ? 'shutdown' : (this.#o.fullReason ?? 'queue_full'));
      return false;
    }
    this.#queue.push(item);
    if (this.#o.eager && this.#queue.length >= this.#batch) void this.#pump();
    return true;
  }

  /** Sends everything queued (waiting out refusals), up to `timeoutMs`; what is left stays queued. */
  async forceFlush(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.#queue.length > 0 && Date.now() < deadline) {
      await this.#pump();
      if (this.#queue.length > 0) await new Promise((r) => setTimeout(r, Math.min(100, Math.max(0, this.#retryAtMs - Date.now()))).unref());
    }
  }

  /** Stops accepting, flushes up to `timeoutMs`, drops (counted) what could not be sent. Idempotent. */
  async shutdown(timeoutMs = 5_000): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.forceFlush(timeoutMs);
    await this.#sending;
    const rest = this.#queue.length;
    this.#queue = [];
    if (rest > 0) this.#o.onDropped(rest, 'shutdown');
  }

  /** Sends batches while there are some and no retry is pending; one request at a time. */
  #pump(): Promise<void> {
    if (this.#sending) return this.#sending;
    if (this.#queue.length === 0 || Date.now() < this.#retryAtMs) return Promise.resolve();
    this.#sending = (async () => {
      try {
        while (this.#queue.length > 0 && Date.now() >= this.#retryAtMs) {
          const batch = this.#queue.slice(0, this.#batch);
          if ((await this.#post(batch)) === 'retry') break;
          this.#queue.splice(0, batch.length);
        }
      } finally {
        this.#sending = undefined;
      }
    })();
    return this.#sending;
  }

  /** One request: 'done' (delivered or dropped for good) or 'retry' (kept, `#retryAtMs` set). */
  async #post(batch: T[]): Promise<'done' | 'retry'> {
    const o = this.#o;
    const headers: Record<string, string> = { 'content-type': 'application/json', ...o.headers };
    if (o.bearerToken) headers.authorization = `Bearer ${o.bearerToken}`;
    const untraced = o.untraced ?? ((fn) => fn());
    const what = o.what ?? 'forwarding';
    let res: { status: number; retryAfter: string | undefined };
    try {
      res = await untraced(() => postJson(o.url, o.encode(batch), headers, o.timeoutMs ?? 10_000));
    } catch (err) {
      return this.#backoff(undefined, `ragwatch: ${what} to ${o.url} failed (${errorMessage(err)}); retrying`);
    }
    if (res.status >= 200 && res.status < 300) {
      this.#failures = 0;
      o.onDelivered(batch);
      return 'done';
    }
    if (res.status === 429 || res.status >= 500) return this.#backoff(Number(res.retryAfter), `ragwatch: ${o.url} answered ${res.status}; retrying`);
    // 4xx: the receiver will never take this batch (bad token, bad data): drop it, counted by status.
    o.onDropped(batch.length, `rejected_${res.status}`);
    this.#warn(o.refused(res.status, batch.length));
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

/**
 * The in-process plugin's feedback reader when it forwards to a ragwatch process (`transport.http.endpoint`):
 * feedback found on the host's spans (as `span-feedback.ts` reads it, with the plugin's `feedback`
 * section) has its comment redacted here — it leaves the host — and is posted to the receiver's
 * `POST /v1/ragwatch/feedback` (bearer token, `source: "span"`, the span-derived id as idempotency key),
 * where it is counted, kept and joined like feedback read from OTLP. A bounded queue (newest dropped when
 * full), one request at a time on an unref'd timer, `node:http(s)` as the triplet forwarder does;
 * 429/503/5xx and network errors wait (`Retry-After`, else exponential backoff) and keep the item, other
 * 4xx drop it. Drops are counted in `ragwatch_feedback_forward_dropped_total{reason}`.
 * @module
 */
import { Counter, type Registry } from 'prom-client';
import type { CapturedSpan } from '../capture/types.ts';
import type { FeedbackConfig } from '../config/sections/feedback.ts';
import { errorMessage } from '../errors.ts';
import { postJson } from '../transport/http-producer.ts';
import { feedbackOfSpan, type RawFeedback } from './span-feedback.ts';
import { valueRulesOf, type ValueRules } from './values.ts';

/** The path feedback is posted to on the receiver. */
export const FEEDBACK_PATH = '/v1/ragwatch/feedback';

/** Options of {@link FeedbackForwarder}; `endpoint`, `config`, `registry` and `redact` are required. */
export interface FeedbackForwarderOptions {
  /** Base URL of the receiving ragwatch's ingest port (`transport.http.endpoint`). */
  endpoint: string;
  bearerToken?: string | undefined;
  /** The plugin's `feedback` section: the span names and values read, the comment bound. */
  config: FeedbackConfig;
  registry: Registry;
  /** Redacts a comment with the redaction policy; undefined when redaction failed (the comment is then left out). */
  redact: (text: string) => string | undefined;
  /** Most items waiting. Default 1000. */
  maxQueueItems?: number;
  /** Send period, milliseconds. Default 1000. */
  lingerMs?: number;
  /** Default 10000. */
  timeoutMs?: number;
  /** Default 30000. */
  maxRetryBackoffMs?: number;
  /** Runs the request outside the host's tracing. Default: as is. */
  untraced?: <T>(fn: () => T) => T;
  /** Where the first delivery problem is reported (once). Default nowhere. */
  warn?: (message: string) => void;
}

/** The API body of one item read off a span. */
export function feedbackBodyOf(item: RawFeedback, config: FeedbackConfig, comment: string | undefined): Record<string, unknown> {
  // Thumbs travel as the configured first positive / negative value: the receiver reads them with its
  // own `feedback` section, which should name the same values (the defaults do).
  const value = item.kind === 'rating' ? { rating: item.value } : { thumbs: item.value === 1 ? config.positiveValues[0] : config.negativeValues[0] };
  return {
    id: item.id,
    source: 'span',
    ...(item.traceId !== undefined ? { traceId: item.traceId } : {}),
    ...(item.responseId !== undefined ? { responseId: item.responseId.slice(0, 256) } : {}),
    ...value,
    ...(comment !== undefined ? { comment } : {}),
    ...(item.service !== undefined ? { service: item.service.slice(0, 256) } : {}),
    ...(item.release !== undefined ? { release: item.release.slice(0, 256) } : {}),
  };
}

export class FeedbackForwarder {
  readonly #o: FeedbackForwarderOptions;
  readonly #url: string;
  readonly #max: number;
  readonly #rules: ValueRules;
  readonly #forwarded: Counter;
  readonly #dropped: Counter<'reason'>;
  #queue: string[] = [];
  #timer: NodeJS.Timeout | undefined;
  #sending: Promise<void> | undefined;
  #retryAtMs = 0;
  #failures = 0;
  #stopped = false;
  #warned = false;

  constructor(options: FeedbackForwarderOptions) {
    this.#o = options;
    this.#url = `${options.endpoint.replace(/\/+$/, '')}${FEEDBACK_PATH}`;
    this.#max = options.maxQueueItems ?? 1_000;
    this.#rules = valueRulesOf(options.config);
    const registers = [options.registry];
    this.#forwarded = new Counter({ name: 'ragwatch_feedback_forwarded_total', help: 'Feedback items the plugin read off spans and the receiving ragwatch accepted (docs/feedback.md).', registers });
    this.#dropped = new Counter({ name: 'ragwatch_feedback_forward_dropped_total', help: 'Feedback items the plugin read off spans and did not deliver, by reason (queue_full, rejected_<status>, shutdown).', labelNames: ['reason'], registers });
    this.#dropped.inc({ reason: 'queue_full' }, 0);
    this.#timer = setInterval(() => void this.#pump(), options.lingerMs ?? 1_000);
    this.#timer.unref();
  }

  /** Items waiting to be sent. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Reads feedback off the spans and queues it (newest dropped, counted, when full). Never throws, never waits. */
  onSpans(spans: readonly CapturedSpan[]): void {
    const spansConfig = this.#o.config.spans;
    if (!this.#o.config.enabled || !spansConfig.enabled) return;
    for (const span of spans) {
      let found: RawFeedback[];
      try {
        found = feedbackOfSpan(span, spansConfig, this.#rules);
      } catch {
        continue;
      }
      for (const item of found) this.#enqueue(item);
    }
  }

  /** Sends everything queued (waiting out refusals), up to `timeoutMs`; what is left stays queued. */
  async forceFlush(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.#queue.length > 0 && Date.now() < deadline) {
      await this.#pump();
      if (this.#queue.length > 0) await new Promise((r) => setTimeout(r, Math.min(100, Math.max(0, this.#retryAtMs - Date.now()))).unref());
    }
  }

  /** Stops accepting, flushes up to `timeoutMs`, drops (counted) the rest. Idempotent. */
  async shutdown(timeoutMs = 5_000): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    if (this.#timer) clearInterval(this.#timer);
    await this.forceFlush(timeoutMs);
    await this.#sending;
    if (this.#queue.length > 0) this.#dropped.inc({ reason: 'shutdown' }, this.#queue.length);
    this.#queue = [];
  }

  #enqueue(item: RawFeedback): void {
    if (this.#stopped || this.#queue.length >= this.#max) {
      this.#dropped.inc({ reason: this.#stopped ? 'shutdown' : 'queue_full' });
      return;
    }
    const max = this.#o.config.maxCommentChars;
    let comment: string | undefined;
    if (item.comment !== undefined && max > 0) {
      const redacted = this.#o.redact(item.comment);
      if (redacted !== undefined) comment = redacted.length > max ? `${redacted.slice(0, max - 1)}…` : redacted;
    }
    this.#queue.push(JSON.stringify(feedbackBodyOf(item, this.#o.config, comment)));
  }

  /** Sends items while there are some and no retry is pending; one request at a time. */
  #pump(): Promise<void> {
    if (this.#sending) return this.#sending;
    if (this.#queue.length === 0 || Date.now() < this.#retryAtMs) return Promise.resolve();
    this.#sending = (async () => {
      try {
        while (this.#queue.length > 0 && Date.now() >= this.#retryAtMs) {
          if ((await this.#post(this.#queue[0]!)) === 'retry') break;
          this.#queue.shift();
        }
      } finally {
        this.#sending = undefined;
      }
    })();
    return this.#sending;
  }

  async #post(body: string): Promise<'done' | 'retry'> {
    const o = this.#o;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (o.bearerToken) headers.authorization = `Bearer ${o.bearerToken}`;
    const untraced = o.untraced ?? ((fn) => fn());
    let res: { status: number; retryAfter: string | undefined };
    try {
      res = await untraced(() => postJson(this.#url, body, headers, o.timeoutMs ?? 10_000));
    } catch (err) {
      return this.#backoff(undefined, `ragwatch: forwarding feedback to ${this.#url} failed (${errorMessage(err)}); retrying`);
    }
    if (res.status >= 200 && res.status < 300) {
      this.#failures = 0;
      this.#forwarded.inc();
      return 'done';
    }
    if (res.status === 429 || res.status >= 500) return this.#backoff(Number(res.retryAfter), `ragwatch: ${this.#url} answered ${res.status}; retrying`);
    this.#dropped.inc({ reason: `rejected_${res.status}` });
    this.#warn(`ragwatch: ${this.#url} refused feedback with ${res.status}; dropped (check transport.http.bearerToken, feedback.enabled and feedback.positiveValues / negativeValues on the receiver)`);
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

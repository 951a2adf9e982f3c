/**
 * The in-process plugin's feedback reader when it forwards to a ragwatch process (`transport.http.endpoint`):
 * feedback found on the host's spans (as `span-feedback.ts` reads it, with the plugin's `feedback`
 * section) has its comment redacted here — it leaves the host — and is posted to the receiver's
 * `POST /v1/ragwatch/feedback` (bearer token, `source: "span"`, the span-derived id as idempotency key),
 * where it is counted, kept and joined like feedback read from OTLP. Sent through the triplet forwarder's
 * {@link HttpPoster} (a bounded queue, one request at a time, 429/5xx and network errors retried, other
 * 4xx dropped); drops are counted in `ragwatch_feedback_forward_dropped_total{reason}`.
 * @module
 */
import { Counter, type Registry } from 'prom-client';
import type { CapturedSpan } from '../capture/types.ts';
import type { FeedbackConfig } from '../config/sections/feedback.ts';
import { HttpPoster, posterSettings, type HttpPosterSettings } from '../transport/http-poster.ts';
import { feedbackOfSpan, type RawFeedback } from './span-feedback.ts';
import { valueRulesOf, type ValueRules } from './values.ts';

/** The path feedback is posted to on the receiver. */
export const FEEDBACK_PATH = '/v1/ragwatch/feedback';

/** Options of {@link FeedbackForwarder}; `endpoint`, `config`, `registry` and `redact` are required (the poster's settings: {@link HttpPosterSettings}). */
export interface FeedbackForwarderOptions extends HttpPosterSettings {
  /** Base URL of the receiving ragwatch's ingest port (`transport.http.endpoint`). */
  endpoint: string;
  /** The plugin's `feedback` section: the span names and values read, the comment bound. */
  config: FeedbackConfig;
  registry: Registry;
  /** Redacts a comment with the redaction policy; undefined when redaction failed (the comment is then left out). */
  redact: (text: string) => string | undefined;
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
  readonly #rules: ValueRules;
  readonly #poster: HttpPoster<string>;

  constructor(options: FeedbackForwarderOptions) {
    this.#o = options;
    this.#rules = valueRulesOf(options.config);
    const registers = [options.registry];
    const forwarded = new Counter({ name: 'ragwatch_feedback_forwarded_total', help: 'Feedback items the plugin read off spans and the receiving ragwatch accepted (docs/feedback.md).', registers });
    const dropped = new Counter({ name: 'ragwatch_feedback_forward_dropped_total', help: 'Feedback items the plugin read off spans and did not deliver, by reason (queue_full, rejected_<status>, shutdown).', labelNames: ['reason'], registers });
    dropped.inc({ reason: 'queue_full' }, 0);
    const url = `${options.endpoint.replace(/\/+$/, '')}${FEEDBACK_PATH}`;
    this.#poster = new HttpPoster<string>({
      ...posterSettings(options),
      url,
      encode: (batch) => batch[0]!,
      onDelivered: (batch) => forwarded.inc(batch.length),
      onDropped: (n, reason) => dropped.inc({ reason }, n),
      refused: (status) => `ragwatch: ${url} refused feedback with ${status}; dropped (check transport.http.bearerToken, feedback.enabled and feedback.positiveValues / negativeValues on the receiver)`,
      what: 'forwarding feedback',
    });
  }

  /** Items waiting to be sent. */
  get queued(): number {
    return this.#poster.queued;
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
  forceFlush(timeoutMs = 10_000): Promise<void> {
    return this.#poster.forceFlush(timeoutMs);
  }

  /** Stops accepting, flushes up to `timeoutMs`, drops (counted) the rest. Idempotent. */
  shutdown(timeoutMs = 5_000): Promise<void> {
    return this.#poster.shutdown(timeoutMs);
  }

  #enqueue(item: RawFeedback): void {
    const max = this.#o.config.maxCommentChars;
    let comment: string | undefined;
    if (item.comment !== undefined && max > 0) {
      const redacted = this.#o.redact(item.comment);
      if (redacted !== undefined) comment = redacted.length > max ? `${redacted.slice(0, max - 1)}…` : redacted;
    }
    this.#poster.enqueue(JSON.stringify(feedbackBodyOf(item, this.#o.config, comment)));
  }
}

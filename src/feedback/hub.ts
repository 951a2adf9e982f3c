/**
 * Where feedback enters a process and where it goes. `submit` takes feedback this process received
 * (the API, its own OTLP ingest): counts it in `ragwatch_feedback_total{service,release,value}` — every
 * item, sampled answer or not — redacts the comment, then keeps it (the embedded store and the monitor)
 * and/or shares it (the labels topic, split mode). `receive` takes an item another process shared: kept,
 * never counted again. The service and release of an item that does not say them come from its scored
 * answer in the store or from the answers capture saw (`lookup`), else `unknown`.
 * @module
 */
import { Counter, type Registry } from 'prom-client';
import { z } from 'zod';
import type { FeedbackConfig } from '../config/sections/feedback.ts';
import { LabelBound, OTHER } from '../telemetry/label-bound.ts';
import type { FeedbackStore } from './feedback-store.ts';
import type { FeedbackMonitor } from './monitor.ts';
import type { RawFeedback } from './span-feedback.ts';
import type { FeedbackItem, FeedbackView, UserLabelledScore } from './types.ts';
import { polarityOf, ratingOf, thumbsOf, valueRulesOf, type ValueRules } from './values.ts';

/** Options of {@link FeedbackHub}. */
export interface FeedbackHubOptions {
  config: FeedbackConfig;
  registry: Registry;
  /** Redacts a comment with the redaction policy; undefined when redaction failed (the comment is then dropped). */
  redact: (text: string) => string | undefined;
  /** The embedded store (start, scorer). */
  store?: FeedbackStore;
  /** The negative share and its alert (where feedback is kept). */
  monitor?: FeedbackMonitor;
  /** Shares an item with the other processes (split mode). */
  publish?: (item: FeedbackItem) => void;
  /** Service and release of an answer capture saw (sampled or not), by trace id. */
  lookup?: (traceId: string | undefined, responseId: string | undefined) => { service: string; release?: string } | undefined;
  /** Services admitted as label values (`metrics.services`, `metrics.maxServices`). */
  services: { allow: readonly string[]; max: number };
  now?: () => number;
}

/** Item ids remembered to recognise a redelivery (a span's items have ids derived from the span). */
const RECENT_IDS = 10_000;

/** The body of `POST /v1/ragwatch/feedback`. */
const apiSchema = z
  .object({
    traceId: z.string().regex(/^[0-9a-fA-F]{32}$/, 'a trace id: 32 hex digits').optional(),
    responseId: z.string().min(1).max(256).optional(),
    spanId: z.string().regex(/^[0-9a-fA-F]{16}$/, 'a span id: 16 hex digits').optional(),
    thumbs: z.union([z.string().max(64), z.number(), z.boolean()]).optional(),
    rating: z.number().int('an integer from 1 to 5').min(1).max(5).optional(),
    comment: z.string().max(10_000).optional(),
    service: z.string().min(1).max(256).optional(),
    release: z.string().min(1).max(256).optional(),
    id: z.string().min(1).max(200).optional(),
    /** Where the sender read it: `span` from the in-process plugin forwarding feedback it found on spans. Default `api`. */
    source: z.enum(['api', 'span']).optional(),
  })
  .strict()
  .refine((b) => b.traceId !== undefined || b.responseId !== undefined, { message: 'traceId or responseId is required (the answer the feedback is about)' })
  .refine((b) => (b.thumbs === undefined) !== (b.rating === undefined), { message: 'exactly one of thumbs (up / down) or rating (1–5) is required' });

export class FeedbackHub implements FeedbackView {
  readonly #o: FeedbackHubOptions;
  readonly #rules: ValueRules;
  readonly #total: Counter<'service' | 'release' | 'value'>;
  readonly #dropped: Counter<'reason'>;
  readonly #services: LabelBound;
  readonly #releases = new Map<string, LabelBound>();
  readonly #now: () => number;
  /** Id → what it said, for the items submitted lately (oldest first), so that a redelivery is not counted twice. */
  readonly #recent = new Map<string, string>();

  constructor(options: FeedbackHubOptions) {
    this.#o = options;
    this.#rules = valueRulesOf(options.config);
    this.#now = options.now ?? Date.now;
    this.#services = new LabelBound(options.services.max, options.services.allow);
    const registers = [options.registry];
    this.#total = new Counter({ name: 'ragwatch_feedback_total', help: "End users' feedback received, by service, release and value (positive, neutral, negative): every item, on sampled answers or not (docs/feedback.md).", labelNames: ['service', 'release', 'value'], registers });
    this.#dropped = new Counter({ name: 'ragwatch_feedback_dropped_total', help: 'Feedback items not kept, by reason: store_error, duplicate (an item with an id submitted lately: a span delivered again by an exporter retry or a topic re-read).', labelNames: ['reason'], registers });
    this.#dropped.inc({ reason: 'store_error' }, 0);
    this.#dropped.inc({ reason: 'duplicate' }, 0);
  }

  /** The value rules in use (the span reader needs them). */
  get rules(): ValueRules {
    return this.#rules;
  }

  /** Parses an API body into an item, or the reason it is refused (a 400). */
  parse(body: unknown): { ok: true; item: RawFeedback } | { ok: false; error: string } {
    const parsed = apiSchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return { ok: false, error: `${issue.path.join('.') || 'body'}: ${issue.message}` };
    }
    const b = parsed.data;
    let kind: FeedbackItem['kind'];
    let value: number;
    if (b.rating !== undefined) {
      kind = 'rating';
      value = ratingOf(b.rating)!;
    } else {
      const t = thumbsOf(b.thumbs, this.#rules);
      if (t === undefined) return { ok: false, error: `thumbs: ${JSON.stringify(b.thumbs)} is neither a positive (${this.#o.config.positiveValues.join(', ')}) nor a negative value (${this.#o.config.negativeValues.join(', ')})` };
      kind = 'thumbs';
      value = t;
    }
    const item: RawFeedback = {
      id: b.id ?? `api-${crypto.randomUUID()}`,
      kind,
      value,
      polarity: polarityOf(kind, value, this.#rules),
      source: b.source ?? 'api',
      createdMs: this.#now(),
      ...(b.traceId ? { traceId: b.traceId.toLowerCase() } : {}),
      ...(b.responseId ? { responseId: b.responseId } : {}),
      ...(b.spanId ? { spanId: b.spanId.toLowerCase() } : {}),
      ...(b.comment ? { comment: b.comment } : {}),
      ...(b.service ? { service: b.service } : {}),
      ...(b.release ? { release: b.release } : {}),
    };
    return { ok: true, item };
  }

  /** Feedback this process received: counted, redacted, kept and/or shared. Returns the stored form. Never throws. */
  submit(raw: RawFeedback): FeedbackItem {
    const item = this.#finish(raw);
    if (this.#seenLately(item)) {
      this.#dropped.inc({ reason: 'duplicate' });
      return item;
    }
    this.#total.inc({ service: item.service, release: item.release ?? OTHER, value: item.polarity });
    this.#keep(item);
    this.#o.publish?.(item);
    return item;
  }

  /** Feedback another process shared (the labels topic): kept, not counted again. */
  receive(item: FeedbackItem): void {
    this.#keep(item);
  }

  /** Replays the items of the store into the monitor (after a restart: its windows and baselines). */
  replay(sinceMs: number): number {
    const items = this.#o.store?.items(sinceMs) ?? [];
    for (const i of items) this.#o.monitor?.add(i);
    return items.length;
  }

  /**
   * True when the same item (id and what it says) was submitted among the last {@link RECENT_IDS}:
   * a redelivery. The same id saying something else is a user changing their mind. Remembers it.
   */
  #seenLately(item: FeedbackItem): boolean {
    const says = `${item.kind}:${item.value}:${item.comment ?? ''}`;
    if (this.#recent.get(item.id) === says) return true;
    this.#recent.delete(item.id);
    this.#recent.set(item.id, says);
    if (this.#recent.size > RECENT_IDS) this.#recent.delete(this.#recent.keys().next().value!);
    return false;
  }

  #keep(item: FeedbackItem): void {
    const store = this.#o.store;
    if (!store) {
      // Without a store (a collector) the item only travels; the process that keeps it feeds its monitor.
      if (!this.#o.publish) this.#o.monitor?.add(item);
      return;
    }
    try {
      if (store.addFeedback(item) === 'new') this.#o.monitor?.add(item);
    } catch {
      this.#dropped.inc({ reason: 'store_error' });
    }
  }

  /** Redacts the comment, bounds the labels, names the answer's service and release. */
  #finish(raw: RawFeedback): FeedbackItem {
    const max = this.#o.config.maxCommentChars;
    let comment: string | undefined;
    if (raw.comment !== undefined && max > 0) {
      const redacted = this.#o.redact(raw.comment);
      if (redacted !== undefined) comment = redacted.length > max ? `${redacted.slice(0, max - 1)}…` : redacted;
    }
    let service = raw.service;
    let release = raw.release;
    if (service === undefined) {
      const answer = this.#o.store?.answersOf(raw.traceId, raw.responseId)[0];
      const known = answer ? { service: answer.service, ...(answer.release !== undefined ? { release: answer.release } : {}) } : this.#o.lookup?.(raw.traceId, raw.responseId);
      service = known?.service;
      release ??= known?.release;
    }
    const bounded = service === undefined ? 'unknown' : this.#services.get(service);
    let releases = this.#releases.get(bounded);
    if (!releases) this.#releases.set(bounded, (releases = new LabelBound(this.#o.config.maxReleases)));
    const { comment: _raw, service: _s, release: _r, ...rest } = raw;
    return { ...rest, service: bounded, ...(release !== undefined ? { release: releases.get(release) } : {}), ...(comment !== undefined ? { comment } : {}) };
  }

  forTrace(traceId: string): FeedbackItem[] {
    return this.#o.store?.forTrace(traceId) ?? [];
  }

  userPoints(): UserLabelledScore[] {
    return this.#o.store?.userPoints() ?? [];
  }

  count(): number {
    return this.#o.store?.count() ?? 0;
  }
}

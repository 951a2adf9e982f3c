/**
 * Collector side of split assembly: each decoded span (and GenAI content log record) becomes a
 * compact, redacted record on `ragwatch.spans.v1`, keyed by trace id, so every span of a trace
 * lands on one partition and one assembler sees them all — whichever collector received them.
 * The whole redaction policy applies here, before anything leaves the collector: text by the
 * recognizers, and identifiers (`redaction.hmacAttributes`, conversation ids) replaced by their
 * tokens under the shared key — the tokens `ragwatch start` gives under the same key.
 * Nothing is assembled here. Synchronous, never throws, bounded by the producer's buffer.
 * @module
 */
import { toLogRecord, toSpanRecord, SPAN_RECORD_VERSION, type StringMap, type TraceBatch } from './span-record.ts';
import type { CapturedLog, CapturedSpan } from '../capture/types.ts';
import type { SpanIngest } from './types.ts';
import type { TripletRedactor } from '../capture/redaction/types.ts';
import type { KafkaSection } from '../transport/kafka-client.ts';
import type { KafkaErrorCause } from '../transport/kafka-errors.ts';
import { KafkaTripletProducer } from '../transport/kafka-producer.ts';
import type { Logger } from '../log.ts';
import type { Instruments } from '../telemetry/instruments.ts';

/** Options of {@link SpanForwarder}. */
export interface SpanForwarderOptions {
  section: KafkaSection;
  instruments: Instruments;
  redactor: TripletRedactor;
  /** Longest string kept per attribute value, characters (`capture.maxTextChars`). */
  maxTextChars: number;
  /** Attributes that may hold a conversation id, in priority order (`capture.conversation.attributes`, then the conventions'). */
  conversationKeys: readonly string[];
  /** Resource attributes sent beside the service identity: those sampling reads (`samplingAttributeKeys`), pseudonymised and redacted like span attributes. Default none. */
  resourceKeys?: readonly string[];
  logger?: Logger;
}

/** Stage label of its drops in `ragwatch_dropped_total`. */
const STAGE = 'span_transport';

/** Items grouped by trace id, in first-seen order. */
function byTrace<T extends { traceId: string }>(items: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const group = out.get(item.traceId);
    if (group) group.push(item);
    else out.set(item.traceId, [item]);
  }
  return out;
}

/**
 * A span with its identifiers pseudonymised as it leaves a collector: its attributes (HMAC attributes,
 * conversation ids) and, when resource attributes beyond the service identity travel, its resource.
 */
export function pseudonymousSpan(span: CapturedSpan, redactor: TripletRedactor, conversationKeys: readonly string[], resourceKeys: readonly string[]): CapturedSpan {
  const out: CapturedSpan = { ...span, attributes: redactor.pseudonymiseAttributes(span.attributes, conversationKeys) as CapturedSpan['attributes'] };
  if (resourceKeys.length > 0) out.resource = redactor.pseudonymiseAttributes(span.resource, []) as CapturedSpan['resource'];
  return out;
}

/** Produces span and log records to the spans topic. */
export class SpanForwarder implements SpanIngest {
  readonly #producer: KafkaTripletProducer;
  readonly #instruments: Instruments;
  readonly #redactor: TripletRedactor;
  readonly #conversationKeys: readonly string[];
  readonly #maxTextChars: number;
  readonly #resourceKeys: readonly string[];
  /** Items (spans + logs) per message handed to the producer and not yet settled, oldest first (bounded by its buffer). */
  #items: number[] = [];
  #itemsHead = 0;
  /** Items of the message being sent right now (a drop reported during `send` is this one). */
  #sending: number | undefined;

  constructor(options: SpanForwarderOptions) {
    const { instruments } = options;
    this.#instruments = instruments;
    this.#redactor = options.redactor;
    this.#maxTextChars = options.maxTextChars;
    this.#conversationKeys = options.conversationKeys;
    this.#resourceKeys = options.resourceKeys ?? [];
    this.#producer = new KafkaTripletProducer({
      section: options.section,
      instruments,
      topic: options.section.topics.spans,
      schemaVersion: SPAN_RECORD_VERSION,
      ...(options.logger ? { logger: options.logger } : {}),
      // The producer counts messages; the books count spans: each message's span count waits here until it settles.
      accounting: {
        delivered: (n) => instruments.spansForwarded.inc(this.#settle(n)),
        dropped: (n, reason) => instruments.dropped.inc({ stage: STAGE, reason }, this.#sending ?? this.#settle(n)),
      },
    });
  }

  /** Redacts, compacts and sends spans: one message per trace of the call. Never throws. */
  addSpans(spans: readonly CapturedSpan[]): void {
    const keys = this.#conversationKeys;
    const extra = this.#resourceKeys;
    for (const [traceId, group] of byTrace(spans)) this.#send(traceId, group.length, (f): TraceBatch => ({ traceId, spans: group.map((s) => toSpanRecord(pseudonymousSpan(s, this.#redactor, keys, extra), f, extra)), logs: [] }));
  }

  /** Sends log records that carry a trace id (one message per trace); the others cannot be joined and are counted. Never throws. */
  addLogs(logs: readonly CapturedLog[]): void {
    const joinable = logs.filter((l): l is CapturedLog & { traceId: string } => !!l.traceId);
    if (joinable.length < logs.length) this.#instruments.dropped.inc({ stage: STAGE, reason: 'log_without_trace' }, logs.length - joinable.length);
    const keys = this.#conversationKeys;
    const pseudonymous = (l: CapturedLog & { traceId: string }): CapturedLog => ({ ...l, attributes: this.#redactor.pseudonymiseAttributes(l.attributes, keys) as CapturedLog['attributes'] });
    for (const [traceId, group] of byTrace(joinable)) this.#send(traceId, group.length, (f): TraceBatch => ({ traceId, spans: [], logs: group.map((l) => toLogRecord(pseudonymous(l), f)) }));
  }

  #send(traceId: string, items: number, build: (f: StringMap) => TraceBatch): void {
    const max = this.#maxTextChars;
    const result = this.#redactor.redactWith((redact) => build((s) => redact(s.length > max ? s.slice(0, max) : s)));
    if (!result.ok) {
      // Fail closed: a record that could not be redacted never leaves the collector.
      this.#instruments.dropped.inc({ stage: STAGE, reason: result.reason }, items);
      return;
    }
    for (const [entity, n] of Object.entries(result.counts)) this.#instruments.redactions.inc({ entity }, n);
    this.#sending = items;
    try {
      if (this.#producer.sendRecord(traceId, result.value)) this.#items.push(items);
    } finally {
      this.#sending = undefined;
    }
  }

  /** Items of the next `messages` settled messages (acknowledged or dropped by the producer thread). */
  #settle(messages: number): number {
    let items = 0;
    for (let i = 0; i < messages && this.#itemsHead < this.#items.length; i++) items += this.#items[this.#itemsHead++]!;
    if (this.#itemsHead > 1024 && this.#itemsHead * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#itemsHead);
      this.#itemsHead = 0;
    }
    return items;
  }

  /** Messages handed to the producer and not yet acknowledged or dropped. */
  get depth(): number {
    return this.#producer.depth;
  }

  /** The cause while the cluster refuses the producer (authentication, TLS, authorization); see KafkaTripletProducer. */
  get blocked(): KafkaErrorCause | undefined {
    return this.#producer.blocked;
  }

  /** Connects eagerly (failures are not fatal: sending retries). */
  connect(): Promise<void> {
    return this.#producer.connect();
  }

  /** Resolves when everything sent so far is acknowledged or dropped, or after `timeoutMs`. */
  forceFlush(timeoutMs?: number): Promise<void> {
    return this.#producer.forceFlush(timeoutMs);
  }

  /** Flushes within `deadlineMs`, then stops. Idempotent. */
  shutdown(deadlineMs?: number): Promise<void> {
    return this.#producer.shutdown(deadlineMs);
  }
}

/**
 * Collector side of split assembly: each decoded span (and GenAI content log record) becomes a
 * compact, redacted record on `ragwatch.spans.v1`, keyed by trace id, so every span of a trace
 * lands on one partition and one assembler sees them all — whichever collector received them.
 * Nothing is assembled here. Synchronous, never throws, bounded by the producer's buffer.
 * @module
 */
import { toLogRecord, toSpanRecord, SPAN_RECORD_VERSION, type StringMap } from './span-record.ts';
import type { CapturedLog, CapturedSpan } from '../capture/types.ts';
import type { TripletRedactor } from '../capture/redaction/types.ts';
import type { KafkaSection } from '../transport/kafka-client.ts';
import { KafkaTripletProducer } from '../transport/kafka-producer.ts';
import type { Logger } from '../log.ts';
import type { Instruments } from '../metrics/instruments.ts';

/** Options of {@link SpanForwarder}. */
export interface SpanForwarderOptions {
  section: KafkaSection;
  instruments: Instruments;
  redactor: TripletRedactor;
  /** Longest string kept per attribute value, characters (`capture.maxTextChars`). */
  maxTextChars: number;
  logger?: Logger;
}

/** Stage label of its drops in `ragwatch_dropped_total`. */
const STAGE = 'span_transport';

/** Produces span and log records to the spans topic. */
export class SpanForwarder {
  readonly #producer: KafkaTripletProducer;
  readonly #instruments: Instruments;
  readonly #redactor: TripletRedactor;
  readonly #maxTextChars: number;

  constructor(options: SpanForwarderOptions) {
    const { instruments } = options;
    this.#instruments = instruments;
    this.#redactor = options.redactor;
    this.#maxTextChars = options.maxTextChars;
    this.#producer = new KafkaTripletProducer({
      section: options.section,
      instruments,
      topic: options.section.topics.spans,
      schemaVersion: SPAN_RECORD_VERSION,
      ...(options.logger ? { logger: options.logger } : {}),
      accounting: {
        delivered: (n) => instruments.spansForwarded.inc(n),
        dropped: (n, reason) => instruments.dropped.inc({ stage: STAGE, reason }, n),
      },
    });
  }

  /** Redacts, compacts and sends spans. Never throws. */
  addSpans(spans: readonly CapturedSpan[]): void {
    for (const span of spans) this.#send(span.traceId, (f) => toSpanRecord(span, f));
  }

  /** Sends log records that carry a trace id; the others cannot be joined and are counted. Never throws. */
  addLogs(logs: readonly CapturedLog[]): void {
    for (const log of logs) {
      const traceId = log.traceId;
      if (!traceId) {
        this.#instruments.dropped.inc({ stage: STAGE, reason: 'log_without_trace' });
        continue;
      }
      this.#send(traceId, (f) => toLogRecord({ ...log, traceId }, f));
    }
  }

  #send(traceId: string, build: (f: StringMap) => unknown): void {
    const max = this.#maxTextChars;
    const result = this.#redactor.redactWith((redact) => build((s) => redact(s.length > max ? s.slice(0, max) : s)));
    if (!result.ok) {
      // Fail closed: a record that could not be redacted never leaves the collector.
      this.#instruments.dropped.inc({ stage: STAGE, reason: result.reason });
      return;
    }
    for (const [entity, n] of Object.entries(result.counts)) this.#instruments.redactions.inc({ entity }, n);
    this.#producer.sendRecord(traceId, result.value);
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

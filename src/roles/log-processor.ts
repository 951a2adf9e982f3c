/**
 * `RagwatchLogRecordProcessor`: the in-process path for GenAI content that instrumentations emit as
 * OpenTelemetry log records (`@opentelemetry/instrumentation-openai` writes prompts and completions
 * only as `gen_ai.*` events). Register it in `NodeSDK({ logRecordProcessors })` next to
 * `RagwatchSpanProcessor`; it feeds the same pipeline, where records are joined to their span by
 * trace/span id. `onEmit` keeps only GenAI events that belong to a span, in a bounded buffer (drop
 * newest, counted): no I/O, no await, no throw. Conversion runs on an unref'd timer.
 * @module
 */
import { diag } from '@opentelemetry/api';
import type { AttrValue, Attributes, CapturedLog } from '../capture/types.ts';
import type { PluginSink } from './plugin-sink.ts';
import { withTracingSuppressed } from '../suppress-tracing.ts';

type HrTime = [number, number];

/** The parts of an SDK log record ragwatch reads (`@opentelemetry/sdk-logs` 0.5x–3.x). */
export interface LogRecordLike {
  readonly hrTime: HrTime;
  readonly spanContext?: { traceId: string; spanId: string } | undefined;
  readonly eventName?: string | undefined;
  readonly body?: unknown;
  readonly attributes: Readonly<Record<string, unknown>>;
}

/** Options of {@link RagwatchLogRecordProcessor}; all optional. */
export interface RagwatchLogRecordProcessorOptions {
  /** The pipeline to feed; usually `spanProcessor.pipeline`. */
  pipeline?: PluginSink;
  /**
   * The span processor whose pipeline to feed (used when `pipeline` is absent). Pass it even with
   * `pipeline`: the span processor then drains this one first when flushed.
   */
  spanProcessor?: { readonly pipeline: PluginSink; addLogSource?(source: { forceFlush(): Promise<unknown> }): void };
  /** Log records buffered between `onEmit` and the next drain; newest dropped beyond it. Default 2048. */
  maxQueueSize?: number;
  /** Drain period, milliseconds. Default 200. */
  scheduledDelayMillis?: number;
}

function eventNameOf(record: LogRecordLike): string | undefined {
  const name = record.eventName ?? record.attributes['event.name'];
  return typeof name === 'string' ? name : undefined;
}

/** Converts an SDK log record into ragwatch's log model. */
export function fromLogRecord(record: LogRecordLike): CapturedLog {
  const log: CapturedLog = {
    timeMs: record.hrTime[0] * 1000 + record.hrTime[1] / 1e6,
    body: record.body as AttrValue | undefined,
    attributes: { ...record.attributes } as Attributes,
  };
  const name = eventNameOf(record);
  if (name !== undefined) log.eventName = name;
  if (record.spanContext) {
    log.traceId = record.spanContext.traceId;
    log.spanId = record.spanContext.spanId;
  }
  return log;
}

export class RagwatchLogRecordProcessor {
  readonly #pipeline: PluginSink | undefined;
  readonly #maxQueueSize: number;
  #buffer: LogRecordLike[] = [];
  #dropped = 0;
  #unreadable = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: RagwatchLogRecordProcessorOptions = {}) {
    this.#pipeline = options.pipeline ?? options.spanProcessor?.pipeline;
    options.spanProcessor?.addLogSource?.(this);
    if (!this.#pipeline) diag.warn('ragwatch: RagwatchLogRecordProcessor has no pipeline (pass { spanProcessor }); log records are ignored');
    this.#maxQueueSize = options.maxQueueSize ?? 2048;
    this.#timer = setInterval(() => this.#drain(), options.scheduledDelayMillis ?? 200);
    this.#timer.unref();
  }

  /** Keeps GenAI content events that belong to a span. Never throws. */
  onEmit(record: LogRecordLike): void {
    try {
      if (this.#closed || !this.#pipeline || !record.spanContext) return;
      const name = eventNameOf(record);
      if (name === undefined || !name.startsWith('gen_ai.')) return;
      if (this.#buffer.length >= this.#maxQueueSize) {
        if (this.#dropped++ === 0) diag.warn('ragwatch: log record buffer full, dropping log records');
        return;
      }
      this.#buffer.push(record);
    } catch {
      // A hostile or broken record must never reach the host as an exception.
      this.#unreadable++;
    }
  }

  /** Hands buffered records to the pipeline (the span processor's forceFlush assembles them). */
  forceFlush(): Promise<void> {
    this.#drain();
    return Promise.resolve();
  }

  /** Drains and stops the timer. Idempotent. */
  shutdown(): Promise<void> {
    if (!this.#closed) {
      this.#drain();
      this.#closed = true;
      if (this.#timer) clearInterval(this.#timer);
      this.#timer = undefined;
    }
    return Promise.resolve();
  }

  #drain(): void {
    const pipeline = this.#pipeline;
    if (!pipeline || (this.#buffer.length === 0 && this.#dropped === 0 && this.#unreadable === 0)) return;
    const batch = this.#buffer;
    this.#buffer = [];
    if (this.#dropped > 0) {
      pipeline.instruments.dropped.inc({ stage: 'log_processor', reason: 'queue_full' }, this.#dropped);
      this.#dropped = 0;
    }
    if (this.#unreadable > 0) {
      pipeline.instruments.dropped.inc({ stage: 'log_processor', reason: 'unreadable_log' }, this.#unreadable);
      this.#unreadable = 0;
    }
    const logs: CapturedLog[] = [];
    for (const r of batch) {
      try {
        logs.push(fromLogRecord(r));
      } catch {
        pipeline.instruments.dropped.inc({ stage: 'log_processor', reason: 'unreadable_log' });
      }
    }
    withTracingSuppressed(() => pipeline.ingestLogs(logs, 'processor'));
  }
}

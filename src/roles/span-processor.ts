/**
 * `RagwatchSpanProcessor`: the capture path inside the host's OpenTelemetry SDK.
 * `onEnd` only appends the span to a bounded buffer (drop newest when full, counted): no I/O,
 * no await, no throw. Conversion, assembly, sampling and scoring run on an unref'd timer.
 * @module
 */
import { diag, type Context } from '@opentelemetry/api';
import type { CapturedSpan, CapturedEvent, Attributes } from '../capture/types.ts';
import { defaultConfig, loadConfig } from '../config/load.ts';
import type { RagwatchConfig, RagwatchConfigInput } from '../config/schema.ts';
import { errorMessage } from '../errors.ts';
import { createPluginSink, pluginTransport } from './create-plugin-sink.ts';
import type { PluginSink } from './plugin-sink.ts';
import { withTracingSuppressed } from '../suppress-tracing.ts';

type HrTime = [number, number];
/** SDK attribute maps: primitives, arrays and (api >= 1.10) nested AnyValue maps. */
type SdkAttributes = Readonly<Record<string, unknown>>;

/** The parts of an SDK `ReadableSpan` ragwatch reads (identical in sdk-trace-base 2.x and sdk-trace 3.x). */
export interface ReadableSpanLike {
  name: string;
  kind: number;
  spanContext(): { traceId: string; spanId: string };
  parentSpanContext?: { spanId: string } | undefined;
  startTime: HrTime;
  endTime: HrTime;
  attributes: SdkAttributes;
  events: ReadonlyArray<{ name: string; time: HrTime; attributes?: SdkAttributes | undefined }>;
  droppedEventsCount?: number;
  resource: { attributes: SdkAttributes };
  instrumentationScope?: { name: string };
  links?: ReadonlyArray<{ context: { traceId: string; spanId: string } }>;
}

/** Options of {@link RagwatchSpanProcessor}; all optional. */
export interface RagwatchSpanProcessorOptions {
  /** Configuration (same keys as `config/ragwatch.yaml`); invalid values fall back to defaults with a warning. */
  config?: RagwatchConfigInput;
  /** Use an existing pipeline (a `Pipeline`, or any {@link PluginSink}) instead of creating one. */
  pipeline?: PluginSink;
  /** Spans buffered between `onEnd` and the next drain; newest dropped beyond it. Default 2048. */
  maxQueueSize?: number;
  /** Drain period, milliseconds. Default 200. */
  scheduledDelayMillis?: number;
}

function hrToMs(t: HrTime): number {
  return t[0] * 1000 + t[1] / 1e6;
}

/** Converts an SDK span into ragwatch's span model. */
export function fromReadableSpan(span: ReadableSpanLike): CapturedSpan {
  const ctx = span.spanContext();
  const events: CapturedEvent[] = span.events.map((e) => ({ name: e.name, timeMs: hrToMs(e.time), attributes: (e.attributes ?? {}) as Attributes }));
  const out: CapturedSpan = {
    traceId: ctx.traceId,
    spanId: ctx.spanId,
    name: span.name,
    kind: span.kind,
    startMs: hrToMs(span.startTime),
    endMs: hrToMs(span.endTime),
    attributes: span.attributes as Attributes,
    events,
    droppedEventsCount: span.droppedEventsCount ?? 0,
    resource: span.resource.attributes as Attributes,
    scope: span.instrumentationScope?.name ?? '',
  };
  const parent = span.parentSpanContext?.spanId;
  if (parent) out.parentSpanId = parent;
  if (span.links && span.links.length > 0) out.links = span.links.map((l) => ({ traceId: l.context.traceId, spanId: l.context.spanId }));
  return out;
}

/** Worker threads of the embedded judge inside a host, unless configured: one (≈ 150 MB of RSS) rather than the server's two. */
const PLUGIN_JUDGE_THREADS = 1;

function resolveConfig(input: RagwatchConfigInput | undefined): RagwatchConfig {
  let config: RagwatchConfig;
  try {
    config = loadConfig({ overrides: (input ?? {}) as Record<string, unknown> });
  } catch (err) {
    // A monitoring plugin must never crash its host: warn and run on defaults.
    diag.warn(`ragwatch: ${errorMessage(err)}; using defaults`);
    config = defaultConfig();
  }
  const threads = (input as { judge?: { embedded?: { threads?: unknown } } } | undefined)?.judge?.embedded?.threads;
  if (threads === undefined) config = { ...config, judge: { ...config.judge, embedded: { ...config.judge.embedded, threads: PLUGIN_JUDGE_THREADS } } };
  return config;
}

/** Says once, at start, what the plugin costs its host when it judges in process (never a surprise). */
function announceCost(config: RagwatchConfig): void {
  if (pluginTransport(config) !== 'memory') return;
  const what =
    config.judge.kind === 'embedded'
      ? `the embedded judge on ${config.judge.embedded.threads} worker thread${config.judge.embedded.threads === 1 ? '' : 's'} (about ${150 * config.judge.embedded.threads} MB of RSS in this process)`
      : config.judge.kind === 'local'
        ? `the local judge's model ${config.judge.local.model} (about 2.4 GB of RSS and seconds of CPU per answer in this process)`
        : `the LLM judge (${config.judge.model}) from this process`;
  process.emitWarning(`ragwatch judges in this process with ${what}. Set RAGWATCH_ENDPOINT (transport.http.endpoint) to forward sampled triplets to a ragwatch process instead (< 30 MB here; docs/capture.md).`, { type: 'RagwatchNotice', code: 'RAGWATCH_IN_PROCESS_JUDGE' });
}

export class RagwatchSpanProcessor {
  /** The pipeline this processor feeds (its `instruments.registry` holds the metrics). */
  readonly pipeline: PluginSink;
  readonly #ownsPipeline: boolean;
  /** Log processors feeding the same pipeline: drained first, so content log records precede assembly. */
  readonly #logSources = new Set<{ forceFlush(): Promise<unknown> }>();
  readonly #maxQueueSize: number;
  #buffer: ReadableSpanLike[] = [];
  #dropped = 0;
  #timer: NodeJS.Timeout | undefined;
  #shutdown: Promise<void> | undefined;

  constructor(options: RagwatchSpanProcessorOptions = {}) {
    this.#ownsPipeline = options.pipeline === undefined;
    if (options.pipeline) this.pipeline = options.pipeline;
    else {
      const config = resolveConfig(options.config);
      announceCost(config);
      this.pipeline = createPluginSink(config);
    }
    this.#maxQueueSize = options.maxQueueSize ?? 2048;
    this.#timer = setInterval(() => this.#drain(), options.scheduledDelayMillis ?? 200);
    this.#timer.unref();
    if (this.#ownsPipeline) {
      withTracingSuppressed(() => this.pipeline.start()).catch((err: unknown) => diag.error(`ragwatch: judge failed to start: ${errorMessage(err)}`));
    }
  }

  onStart(_span: unknown, _parentContext: Context): void {}

  /** Appends the span to the bounded buffer; reads nothing off it. Never throws. */
  onEnd(span: ReadableSpanLike): void {
    try {
      if (this.#shutdown) return;
      if (this.#buffer.length >= this.#maxQueueSize) {
        if (this.#dropped++ === 0) diag.warn('ragwatch: span buffer full, dropping spans');
        return;
      }
      this.#buffer.push(span);
    } catch {
      // Only a broken diag logger could throw here; the host must never see it.
    }
  }

  /** Drains buffered spans into the pipeline and waits until they are scored. */
  async forceFlush(): Promise<void> {
    this.#drainLogSources();
    this.#drain();
    await this.pipeline.forceFlush();
  }

  /** Drains, stops the timer and shuts the pipeline down (if this processor created it). Idempotent. */
  shutdown(): Promise<void> {
    this.#shutdown ??= (async () => {
      if (this.#timer) clearInterval(this.#timer);
      this.#drainLogSources();
      this.#drain();
      if (this.#ownsPipeline) await this.pipeline.shutdown();
    })();
    return this.#shutdown;
  }

  /**
   * Registers a log processor whose buffer is drained before this processor assembles (NodeSDK
   * flushes the tracer provider before the logger provider). `RagwatchLogRecordProcessor` calls it.
   */
  addLogSource(source: { forceFlush(): Promise<unknown> }): void {
    this.#logSources.add(source);
  }

  #drainLogSources(): void {
    // Their forceFlush drains synchronously; the promise only reports completion.
    for (const source of this.#logSources) void source.forceFlush();
  }

  #drain(): void {
    const batch = this.#buffer;
    if (batch.length === 0 && this.#dropped === 0) return;
    this.#buffer = [];
    if (this.#dropped > 0) {
      this.pipeline.instruments.dropped.inc({ stage: 'processor', reason: 'queue_full' }, this.#dropped);
      diag.warn(`ragwatch: dropped ${this.#dropped} spans because the processor buffer was full`);
      this.#dropped = 0;
    }
    const spans: CapturedSpan[] = [];
    for (const s of batch) {
      try {
        spans.push(fromReadableSpan(s));
      } catch {
        this.pipeline.instruments.dropped.inc({ stage: 'processor', reason: 'unreadable_span' });
      }
    }
    // Ragwatch's own work (judge calls, Kafka sends) must not be traced back into the host's pipeline.
    withTracingSuppressed(() => this.pipeline.ingestSpans(spans, 'processor'));
  }
}

/**
 * The plugin's light pipeline: capture (assembly, conventions, redaction with the configured key)
 * → sampling → {@link HttpTripletProducer} to a ragwatch process, which judges; feedback found on the
 * spans goes to the same process's feedback API ({@link FeedbackForwarder}). Nothing heavier than
 * capture is loaded in the host: no judge, no model, no Kafka client, no worker thread.
 * @module
 */
import { diag } from '@opentelemetry/api';
import { Capture } from '../capture/capture.ts';
import { createRedactor, redactionForPipeline } from '../capture/redaction/redact-outcome.ts';
import type { CapturedLog, CapturedSpan, SpanSource } from '../capture/types.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import { ConfigError } from '../errors.ts';
import { FeedbackForwarder } from '../feedback/feedback-forwarder.ts';
import type { Sampler } from '../sampling/types.ts';
import { withTracingSuppressed } from '../suppress-tracing.ts';
import { createInstruments, instrumentsOptionsFromConfig, type Instruments } from '../telemetry/instruments.ts';
import { HttpTripletProducer } from '../transport/http-producer.ts';
import type { PluginSink } from './plugin-sink.ts';
import { sampleInto, samplerFor } from './sample-stage.ts';
import { samplingAttributeKeys } from '../config/sampling-attributes.ts';

export class ForwardingPipeline implements PluginSink {
  readonly config: RagwatchConfig;
  readonly instruments: Instruments;
  readonly capture: Capture;
  readonly sampler: Sampler;
  readonly producer: HttpTripletProducer;
  /** Feedback read off the host's spans, posted to the receiver (absent when `feedback.enabled` or `feedback.spans.enabled` is false). */
  readonly feedback: FeedbackForwarder | undefined;
  #shutdown: Promise<void> | undefined;

  constructor(config: RagwatchConfig, instruments?: Instruments) {
    const http = config.transport.http;
    if (http.endpoint === undefined) throw new ConfigError('config key "transport.http.endpoint" (env RAGWATCH_ENDPOINT): forwarding needs the URL of a ragwatch ingest port', ['transport.http.endpoint']);
    this.config = config;
    this.instruments = instruments ?? createInstruments(instrumentsOptionsFromConfig(config));
    this.producer = new HttpTripletProducer({
      endpoint: http.endpoint,
      bearerToken: http.bearerToken,
      instruments: this.instruments,
      maxBufferTriplets: http.maxBufferTriplets,
      batchMaxTriplets: http.batchMaxTriplets,
      lingerMs: http.lingerMs,
      timeoutMs: http.timeoutMs,
      maxRetryBackoffMs: http.maxRetryBackoffMs,
      untraced: withTracingSuppressed,
      warn: (message) => diag.warn(message),
    });
    this.capture = new Capture({ config: config.capture, redaction: redactionForPipeline(config), attributeKeys: samplingAttributeKeys(config), instruments: this.instruments, onTriplet: (t) => sampleInto(t, this.sampler, this.producer, this.instruments) });
    this.sampler = samplerFor(config, this.capture);
    const f = config.feedback;
    if (f.enabled && f.spans.enabled) {
      const redactor = createRedactor(redactionForPipeline(config));
      this.feedback = new FeedbackForwarder({
        endpoint: http.endpoint,
        bearerToken: http.bearerToken,
        config: f,
        registry: this.instruments.registry,
        redact: (text) => {
          const r = redactor.redactWith((redact) => redact(text));
          return r.ok ? r.value : undefined;
        },
        timeoutMs: http.timeoutMs,
        maxRetryBackoffMs: http.maxRetryBackoffMs,
        untraced: withTracingSuppressed,
        warn: (message) => diag.warn(message),
      });
    }
  }

  ingestSpans(spans: readonly CapturedSpan[], source: SpanSource): void {
    this.capture.addSpans(spans, source);
    this.feedback?.onSpans(spans);
  }

  ingestLogs(logs: readonly CapturedLog[], source: SpanSource): void {
    this.capture.addLogs(logs, source);
  }

  /** Nothing to start: the producer sends on its own timer. */
  start(): Promise<void> {
    return Promise.resolve();
  }

  /** Assembles buffered traces and sends every sampled triplet (waiting out refusals, up to `server.shutdownGraceMs`). */
  async forceFlush(): Promise<void> {
    await this.capture.forceFlush();
    await this.producer.forceFlush(this.config.server.shutdownGraceMs);
    await this.feedback?.forceFlush(this.config.server.shutdownGraceMs);
  }

  /** Stops capture, sends what it can within `graceMs`, drops (counted) the rest. Idempotent. */
  shutdown(graceMs: number = this.config.server.shutdownGraceMs): Promise<void> {
    return (this.#shutdown ??= (async () => {
      await this.capture.shutdown();
      await this.producer.shutdown(graceMs);
      await this.feedback?.shutdown(Math.max(100, Math.floor(graceMs / 2)));
    })());
  }
}

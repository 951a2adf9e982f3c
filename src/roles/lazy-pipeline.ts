/**
 * The full pipeline for the plugin (in-process judging, or Kafka), loaded on first use: its modules
 * (judges, model, Kafka client) are imported only when the plugin is not forwarding. Its instruments
 * exist at once (the registry the host reads); spans and logs that arrive before the pipeline is
 * loaded wait in a bounded buffer (dropped beyond it, counted). With Kafka, feedback found on the spans
 * is counted here and published on the labels topic, as a split-mode collector does (`roles/feedback.ts`).
 * @module
 */
import { diag } from '@opentelemetry/api';
import type { CapturedLog, CapturedSpan, SpanSource } from '../capture/types.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import { errorMessage } from '../errors.ts';
import { createInstruments, instrumentsOptionsFromConfig, type Instruments } from '../telemetry/instruments.ts';
import type { FeedbackParts } from '../feedback/create.ts';
import type { Pipeline } from './pipeline.ts';
import type { PluginSink } from './plugin-sink.ts';

/** Items (span batches and log batches) held while the pipeline loads. */
const MAX_PENDING_BATCHES = 1_000;

/** Kafka: the collector's feedback parts in the plugin's registry; undefined otherwise, or when they fail to load (scoring goes on). */
async function loadFeedback(config: RagwatchConfig, instruments: Instruments): Promise<FeedbackParts | undefined> {
  if (config.transport.kind !== 'kafka' || !config.feedback.enabled || !config.feedback.spans.enabled) return undefined;
  try {
    const [{ startFeedback }, { silentLogger }] = await Promise.all([import('./feedback.ts'), import('../log.ts')]);
    return await startFeedback(config, { registry: instruments.registry, logger: silentLogger, role: 'collector' });
  } catch (err) {
    diag.warn(`ragwatch: feedback on spans not read: ${errorMessage(err)}`);
    return undefined;
  }
}

export class LazyPipeline implements PluginSink {
  readonly instruments: Instruments;
  readonly #loaded: Promise<Pipeline | undefined>;
  #pipeline: Pipeline | undefined;
  /** Kafka: the collector's feedback parts (count, publish on the labels topic); loaded with the pipeline. */
  #feedback: FeedbackParts | undefined;
  #pending: Array<{ spans?: readonly CapturedSpan[]; logs?: readonly CapturedLog[]; source: SpanSource }> = [];

  constructor(config: RagwatchConfig) {
    this.instruments = createInstruments(instrumentsOptionsFromConfig(config));
    this.#loaded = Promise.all([import('./pipeline.ts'), loadFeedback(config, this.instruments)]).then(
      ([{ Pipeline }, feedback]) => {
        const pipeline = new Pipeline({ config, instruments: this.instruments });
        this.#pipeline = pipeline;
        this.#feedback = feedback;
        feedback?.start();
        for (const p of this.#pending) {
          if (p.spans) this.#ingest(pipeline, p.spans, p.source);
          if (p.logs) pipeline.ingestLogs(p.logs, p.source);
        }
        this.#pending = [];
        return pipeline;
      },
      (err: unknown) => {
        diag.error(`ragwatch: pipeline failed to load: ${errorMessage(err)}`);
        return undefined;
      },
    );
  }

  /** The full pipeline once loaded (undefined if it failed to load). */
  loaded(): Promise<Pipeline | undefined> {
    return this.#loaded;
  }

  ingestSpans(spans: readonly CapturedSpan[], source: SpanSource): void {
    if (this.#pipeline) this.#ingest(this.#pipeline, spans, source);
    else this.#hold({ spans, source }, spans.length);
  }

  ingestLogs(logs: readonly CapturedLog[], source: SpanSource): void {
    if (this.#pipeline) this.#pipeline.ingestLogs(logs, source);
    else this.#hold({ logs, source }, logs.length);
  }

  async start(): Promise<void> {
    await (await this.#loaded)?.start();
  }

  async forceFlush(): Promise<void> {
    await (await this.#loaded)?.forceFlush();
  }

  async shutdown(graceMs?: number): Promise<void> {
    await (await this.#loaded)?.shutdown(graceMs);
    await this.#feedback?.shutdown();
  }

  #ingest(pipeline: Pipeline, spans: readonly CapturedSpan[], source: SpanSource): void {
    pipeline.ingestSpans(spans, source);
    this.#feedback?.onSpans(spans);
  }

  #hold(batch: { spans?: readonly CapturedSpan[]; logs?: readonly CapturedLog[]; source: SpanSource }, items: number): void {
    if (this.#pending.length >= MAX_PENDING_BATCHES) {
      this.instruments.dropped.inc({ stage: 'processor', reason: 'pipeline_loading' }, items);
      return;
    }
    this.#pending.push(batch);
  }
}

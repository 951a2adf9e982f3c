/**
 * The full pipeline for the plugin (in-process judging, or Kafka), loaded on first use: its modules
 * (judges, model, Kafka client) are imported only when the plugin is not forwarding. Its instruments
 * exist at once (the registry the host reads); spans and logs that arrive before the pipeline is
 * loaded wait in a bounded buffer (dropped beyond it, counted).
 * @module
 */
import { diag } from '@opentelemetry/api';
import type { CapturedLog, CapturedSpan, SpanSource } from '../capture/types.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import { errorMessage } from '../errors.ts';
import { createInstruments, instrumentsOptionsFromConfig, type Instruments } from '../telemetry/instruments.ts';
import type { Pipeline } from './pipeline.ts';
import type { PluginSink } from './plugin-sink.ts';

/** Items (span batches and log batches) held while the pipeline loads. */
const MAX_PENDING_BATCHES = 1_000;

export class LazyPipeline implements PluginSink {
  readonly instruments: Instruments;
  readonly #loaded: Promise<Pipeline | undefined>;
  #pipeline: Pipeline | undefined;
  #pending: Array<{ spans?: readonly CapturedSpan[]; logs?: readonly CapturedLog[]; source: SpanSource }> = [];

  constructor(config: RagwatchConfig) {
    this.instruments = createInstruments(instrumentsOptionsFromConfig(config));
    this.#loaded = import('./pipeline.ts').then(
      ({ Pipeline }) => {
        const pipeline = new Pipeline({ config, instruments: this.instruments });
        this.#pipeline = pipeline;
        for (const p of this.#pending) {
          if (p.spans) pipeline.ingestSpans(p.spans, p.source);
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
    if (this.#pipeline) this.#pipeline.ingestSpans(spans, source);
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
  }

  #hold(batch: { spans?: readonly CapturedSpan[]; logs?: readonly CapturedLog[]; source: SpanSource }, items: number): void {
    if (this.#pending.length >= MAX_PENDING_BATCHES) {
      this.instruments.dropped.inc({ stage: 'processor', reason: 'pipeline_loading' }, items);
      return;
    }
    this.#pending.push(batch);
  }
}

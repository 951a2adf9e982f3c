/**
 * What the in-process plugin (`RagwatchSpanProcessor`, `RagwatchLogRecordProcessor`) feeds
 * (`create-plugin-sink.ts` chooses which).
 * @module
 */
import type { CapturedLog, CapturedSpan, SpanSource } from '../capture/types.ts';
import type { Instruments } from '../telemetry/instruments.ts';

/** The plugin's side of a pipeline. `Pipeline`, {@link ForwardingPipeline} and {@link LazyPipeline} are ones. */
export interface PluginSink {
  /** The plugin's own registry and counters (`instruments.registry` holds the metrics). */
  readonly instruments: Instruments;
  ingestSpans(spans: readonly CapturedSpan[], source: SpanSource): void;
  ingestLogs(logs: readonly CapturedLog[], source: SpanSource): void;
  start(): Promise<void>;
  forceFlush(): Promise<void>;
  shutdown(graceMs?: number): Promise<void>;
}

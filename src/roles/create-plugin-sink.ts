/**
 * Which pipeline the in-process plugin builds from its configuration (DESIGN §20: in someone else's
 * process, capture, redact, sample and hand triplets on):
 * - an endpoint configured (`transport.http.endpoint`, env `RAGWATCH_ENDPOINT`) → the light forwarding
 *   pipeline: no judge, no Kafka client, no scoring modules loaded;
 * - otherwise the full pipeline (in-process judging, or Kafka), loaded on first use so that the
 *   forwarding host never pays for its modules.
 * @module
 */
import type { RagwatchConfig } from '../config/schema.ts';
import { ForwardingPipeline } from './forwarding-pipeline.ts';
import { LazyPipeline } from './lazy-pipeline.ts';
import type { PluginSink } from './plugin-sink.ts';

/** Forward when an endpoint is configured and the transport is left at its default; else the full pipeline. */
export function pluginTransport(config: RagwatchConfig): 'http' | 'memory' | 'kafka' {
  if (config.transport.kind === 'memory' && config.transport.http.endpoint !== undefined) return 'http';
  return config.transport.kind;
}

/** The plugin's pipeline for `config`. */
export function createPluginSink(config: RagwatchConfig): PluginSink {
  return pluginTransport(config) === 'http' ? new ForwardingPipeline(config) : new LazyPipeline(config);
}

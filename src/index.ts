/**
 * ragwatch's main entry (`import … from 'ragwatch'`), as light on a host as `ragwatch/plugin`: the
 * span and log processors, the configuration, the wire contract and the errors — every module here is
 * one the plugin loads anyway (tests/roles/plugin-modules.test.ts holds the two to the same modules,
 * bench/plugin-rss.ts measures both). The rest lives under named subpaths, loaded only by who imports
 * them: `ragwatch/pipeline` (pipeline, samplers), `ragwatch/server` (`startApp`, the quality
 * monitor), `ragwatch/rules` (alert rules, diagnosis), `ragwatch/judges` (the judges).
 * @module
 */
export { RagwatchSpanProcessor, fromReadableSpan } from './roles/span-processor.ts';
export type { RagwatchSpanProcessorOptions, ReadableSpanLike } from './roles/span-processor.ts';
export { RagwatchLogRecordProcessor, fromLogRecord } from './roles/log-processor.ts';
export type { RagwatchLogRecordProcessorOptions, LogRecordLike } from './roles/log-processor.ts';
export type { PluginSink } from './roles/plugin-sink.ts';
export { loadConfig, defaultConfig } from './config/load.ts';
export type { RagwatchConfig, RagwatchConfigInput } from './config/schema.ts';
export { ConfigError, RagwatchError, OtlpDecodeError } from './errors.ts';
export type { RagwatchErrorCode } from './errors.ts';
export { tripletSchema, sampledTripletSchema, scoreRecordSchema, SCHEMA_VERSION, METRIC_NAMES } from './triplet.ts';
export type { Triplet, SampledTriplet, ScoreRecord, MetricName, Convention, Source } from './triplet.ts';
// Metrics as data: the registry is part of the configuration's ground (the plugin loads it anyway).
export { MetricRegistry, metricRegistryOf, BUILTIN_METRICS, BUILTIN_REGISTRY, MAX_EVALUATORS } from './metric-registry.ts';
export type { MetricDefinition, MetricKind, MetricSource, MetricLabel } from './metric-registry.ts';

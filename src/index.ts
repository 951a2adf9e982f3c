/**
 * ragwatch public API (named exports only).
 * @module
 */
export { RagwatchSpanProcessor, fromReadableSpan } from './roles/span-processor.ts';
export type { RagwatchSpanProcessorOptions, ReadableSpanLike } from './roles/span-processor.ts';
export { RagwatchLogRecordProcessor, fromLogRecord } from './roles/log-processor.ts';
export type { RagwatchLogRecordProcessorOptions, LogRecordLike } from './roles/log-processor.ts';
export { Pipeline } from './roles/pipeline.ts';
export type { PipelineOptions, PipelineRole } from './roles/pipeline.ts';
export { createSampler } from './sampling/create.ts';
export { RateSampler } from './sampling/rate.ts';
export { StratifiedSampler } from './sampling/stratified.ts';
export type { StratifiedSamplerOptions } from './sampling/stratified.ts';
export { RulesSampler } from './sampling/rules.ts';
export type { RulesSamplerOptions, SamplingRule, RuleMatch } from './sampling/rules.ts';
export { ScoringBudget } from './sampling/budget.ts';
export type { Sampler, SamplingDecision } from './sampling/types.ts';
export type { HandleResult, TripletConsumer, TripletProducer } from './transport/types.ts';
export { startApp } from './roles/start.ts';
export type { RunningApp } from './roles/start.ts';
export { alertName } from './metrics/rules.ts';
export { generateRules } from './roles/rules.ts';
export type { RuleGroup } from './metrics/rules.ts';
export { QualityMonitor } from './roles/quality.ts';
export { instrumentsOptionsFromConfig } from './telemetry/instruments.ts';
export type { QualityMonitorOptions, QualityStatus } from './roles/quality.ts';
export { diagnose, DIAGNOSIS_PATTERNS, DIAGNOSIS_COMPONENTS } from './metrics/diagnosis.ts';
export type { Diagnosis, DiagnosisComponent, DiagnosisPattern } from './metrics/diagnosis.ts';
export { loadConfig, defaultConfig } from './config/load.ts';
export type { RagwatchConfig, RagwatchConfigInput } from './config/schema.ts';
export { ConfigError, RagwatchError, OtlpDecodeError } from './errors.ts';
export type { RagwatchErrorCode } from './errors.ts';
export { tripletSchema, sampledTripletSchema, scoreRecordSchema, SCHEMA_VERSION, METRIC_NAMES } from './triplet.ts';
export type { Triplet, SampledTriplet, ScoreRecord, MetricName, Convention, Source } from './triplet.ts';
export { createJudge } from './judges/create.ts';
export { LlmJudge } from './judges/llm/llm-judge.ts';
export type { LlmJudgeOptions } from './judges/llm/llm-judge.ts';
export { EmbeddedJudge } from './judges/embedded/embedded-judge.ts';
export type { EmbeddedJudgeOptions } from './judges/embedded/embedded-judge.ts';
export { aggregateVerdicts } from './judges/aggregate.ts';
export type { Judge, JudgeResult, JudgeFailure, JudgeScores, SentenceEmbedder } from './judges/types.ts';

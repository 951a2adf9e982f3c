/**
 * `ragwatch/pipeline`: the in-process pipeline (capture → sample → queue → score) and the samplers,
 * for code that builds its own wiring. Loads the transport and the scorer; a host that only captures
 * imports the processors from `ragwatch` instead.
 * @module
 */
export { Pipeline } from '../roles/pipeline.ts';
export type { PipelineOptions, PipelineRole } from '../roles/pipeline.ts';
export { createSampler } from '../sampling/create.ts';
export { RateSampler } from '../sampling/rate.ts';
export { StratifiedSampler } from '../sampling/stratified.ts';
export type { StratifiedSamplerOptions } from '../sampling/stratified.ts';
export { RulesSampler } from '../sampling/rules.ts';
export type { RulesSamplerOptions, SamplingRule, RuleMatch } from '../sampling/rules.ts';
export { ScoringBudget } from '../sampling/budget.ts';
export type { Sampler, SamplingDecision } from '../sampling/types.ts';
export type { HandleResult, TripletConsumer, TripletProducer } from '../transport/types.ts';

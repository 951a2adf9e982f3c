/**
 * `ragwatch/judges`: the reference-free judges (LLM and embedded), the verdict aggregation and the
 * configured evaluators' checks, for scoring triplets from code (what `ragwatch score` does).
 * @module
 */
export { createJudge } from '../judges/create.ts';
export { LlmJudge } from '../judges/llm/llm-judge.ts';
export type { LlmJudgeOptions } from '../judges/llm/llm-judge.ts';
export { EmbeddedJudge } from '../judges/embedded/embedded-judge.ts';
export type { EmbeddedJudgeOptions } from '../judges/embedded/embedded-judge.ts';
export { aggregateVerdicts } from '../judges/aggregate.ts';
export type { Judge, JudgeResult, JudgeFailure, JudgeScores, SentenceEmbedder } from '../judges/types.ts';
export { createEvaluators } from '../evaluators/create.ts';
export type { EvaluatorSet, Evaluations } from '../evaluators/types.ts';

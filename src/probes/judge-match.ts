/**
 * `match: judge`: the configured LLM judge decides whether a probe's answer states its ground truth
 * (same meaning, any wording) — for free-text truths no string rule can grade. The question, truth and
 * answer go into the hardened prompt as untrusted data; an answer the judge cannot grade (endpoint
 * down, malformed twice) is an `error` outcome, never a wrong answer.
 * @module
 */
import type { RagwatchConfig } from '../config/schema.ts';
import { LlmClient } from '../judges/llm/client.ts';
import { sameAnswerStep } from '../judges/llm/steps.ts';
import { runStep } from '../judges/llm/step.ts';
import { SuiteError } from '../errors.ts';
import type { ProbeSuite } from './suite.ts';
import type { ProbeQuery } from './types.ts';

/** Grades one answer: true / false, or undefined when the judge could not say. */
export type JudgeMatch = (query: ProbeQuery, answer: string) => Promise<boolean | undefined>;

/** The LLM match of `judge.*` (endpoint, model, limits); throws naming the key when no endpoint is configured. */
export function createJudgeMatch(config: RagwatchConfig, suite: ProbeSuite, file: string): JudgeMatch {
  const template = suite.templates.find((t) => t.match === 'judge')!;
  const j = config.judge;
  if (j.baseUrl === undefined) {
    throw new SuiteError(`probe suite ${file}: key "templates.${template.name}.match": "judge" asks the LLM judge, but config key "judge.baseUrl" is not set (an OpenAI-compatible endpoint)`, [`templates.${template.name}.match`, 'judge.baseUrl']);
  }
  const client = llmClientOf(config);
  return async (query, answer) => {
    const usage = { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 };
    const r = await runStep(client, sameAnswerStep(query.query, query.truth, answer), usage);
    return r.ok ? r.value : undefined;
  };
}

/** A client of the configured judge endpoint (`judge.baseUrl`, model, key, limits); the caller checks that `judge.baseUrl` is set. */
export function llmClientOf(config: RagwatchConfig): LlmClient {
  const j = config.judge;
  const { embeddings: _embeddings, embeddingModel: _embeddingModel, factCacheSize: _f, resultCacheSize: _r, ...llm } = j.llm;
  return new LlmClient({ ...llm, model: j.model, baseUrl: j.baseUrl!, ...(j.apiKey !== undefined ? { apiKey: j.apiKey } : {}) });
}

/** True when a suite has a template graded by the judge. */
export function needsJudgeMatch(suite: ProbeSuite): boolean {
  return suite.templates.some((t) => t.match === 'judge');
}

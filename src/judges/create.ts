/**
 * The judge factories: the judge named by the configuration and its companion (as
 * `sampling/create.ts` builds the sampler).
 * @module
 */
import type { RagwatchConfig } from '../config/schema.ts';
import type { Instruments } from '../telemetry/instruments.ts';
import { EmbeddedJudge } from './embedded/embedded-judge.ts';
import { EndpointEmbedder } from './llm/endpoint-embedder.ts';
import { LlmClient } from './llm/client.ts';
import { LlmEvaluators } from './llm/llm-evaluators.ts';
import { LlmJudge } from './llm/llm-judge.ts';
import type { Judge } from './types.ts';

/**
 * Builds the judge named by the configuration (`judge.kind`, which defaults to `llm` when an
 * endpoint is configured, else `embedded`); an LLM judge also judges the `llm` evaluators. Judge usage
 * series go to `options.instruments`.
 */
export function createJudge(config: RagwatchConfig, options: { instruments?: Instruments } = {}): Judge {
  const j = config.judge;
  if (j.kind === 'embedded') return embeddedJudge(config);
  const { embeddings, embeddingModel, ...llm } = j.llm;
  const endpoint = { ...(j.baseUrl !== undefined ? { baseUrl: j.baseUrl } : {}), ...(j.apiKey !== undefined ? { apiKey: j.apiKey } : {}) };
  return new LlmJudge({
    ...llm,
    ...(embeddings === 'endpoint' ? { embedder: new EndpointEmbedder({ ...endpoint, model: embeddingModel, timeoutMs: llm.timeoutMs }) } : {}),
    model: j.model,
    ...(j.baseUrl !== undefined ? { baseUrl: j.baseUrl } : {}),
    ...(j.apiKey !== undefined ? { apiKey: j.apiKey } : {}),
    similarityThreshold: j.embedded.similarityThreshold,
    embeddingThreads: j.embedded.threads,
    evaluators: config.evaluators.filter((e) => e.kind === 'llm'),
    ...(options.instruments ? { instruments: options.instruments } : {}),
  });
}

/** The companion judge: the embedded judge next to an LLM judge when `judge.embedded.alongside` is set. */
export function createCompanionJudge(config: RagwatchConfig): Judge | undefined {
  return config.judge.kind === 'llm' && config.judge.embedded.alongside ? embeddedJudge(config) : undefined;
}

function embeddedJudge(config: RagwatchConfig): EmbeddedJudge {
  return new EmbeddedJudge({ similarityThreshold: config.judge.embedded.similarityThreshold, threads: config.judge.embedded.threads, completenessRelevance: config.judge.embedded.completenessRelevance });
}

/**
 * The configured `llm` evaluators alone, on a client of their own (`ragwatch evaluators try`: one call
 * per triplet, none of the built-in calls); undefined when the judge is not an LLM or none is configured.
 */
export function createEvaluatorJudge(config: RagwatchConfig, options: { instruments?: Instruments } = {}): LlmEvaluators | undefined {
  const j = config.judge;
  const evaluators = config.evaluators.filter((e) => e.kind === 'llm');
  if (j.kind !== 'llm' || evaluators.length === 0) return undefined;
  const { embeddings: _embeddings, embeddingModel: _model, ...llm } = j.llm;
  const client = new LlmClient({ ...llm, model: j.model, ...(j.baseUrl !== undefined ? { baseUrl: j.baseUrl } : {}), ...(j.apiKey !== undefined ? { apiKey: j.apiKey } : {}), ...(options.instruments ? { instruments: options.instruments } : {}) });
  return new LlmEvaluators(client, evaluators, { cacheSize: 0 });
}

/**
 * The judge factories: the judge named by the configuration and its companion (as
 * `sampling/create.ts` builds the sampler).
 * @module
 */
import type { RagwatchConfig } from '../config/schema.ts';
import type { Logger } from '../log.ts';
import type { Instruments } from '../telemetry/instruments.ts';
import { DEFAULT_LOCAL_MODEL, catalogueModel } from '../models/catalogue.ts';
import { ModelCache, defaultModelCacheDir, isModelCachedSync } from '../models/cache.ts';
import { EmbeddedJudge } from './embedded/embedded-judge.ts';
import { LocalJudge } from './local/local-judge.ts';
import { EndpointEmbedder } from './llm/endpoint-embedder.ts';
import { LlmClient } from './llm/client.ts';
import { LlmEvaluators } from './llm/llm-evaluators.ts';
import { LlmJudge } from './llm/llm-judge.ts';
import type { Judge } from './types.ts';

/** Options of {@link createJudge}; all optional. */
export interface CreateJudgeOptions {
  instruments?: Instruments;
  logger?: Logger;
  /**
   * `judge.kind` left unset and no endpoint: take the local judge when its model is in the cache
   * (`ragwatch start`, `ragwatch scorer`; never a host's in-process plugin). Default false.
   */
  autoLocal?: boolean;
  /** A local judge whose model is missing fails `init()` (offline commands) instead of waiting for it. Default false. */
  requireModel?: boolean;
}

/**
 * The judge kind a process runs: `judge.kind`, or, when it was left unset with no endpoint and
 * `autoLocal` is asked, `local` if the model is cached (else `embedded`).
 */
export function judgeKindOf(config: RagwatchConfig, autoLocal = false): Judge['kind'] {
  const j = config.judge;
  if (autoLocal && j.kindDefaulted && j.kind === 'embedded' && isModelCachedSync(modelCacheDir(config), j.local.model)) return 'local';
  return j.kind;
}

/**
 * The one line `ragwatch start` logs when it picked the embedded judge by default: how to get the
 * local one. Undefined when the kind was configured or is not the embedded judge.
 */
export function judgeChoiceNote(config: RagwatchConfig): string | undefined {
  const j = config.judge;
  if (!j.kindDefaulted || judgeKindOf(config, true) !== 'embedded') return undefined;
  const pull = catalogueModel(j.local.model) ? `ragwatch models pull ${j.local.model}` : `ragwatch models add FILE.gguf --name ${j.local.model}`;
  return `judging with the embedded judge (no model in ${modelCacheDir(config)}); for the local model judge — no API key, ≈ 2.4 GB RAM — run \`${pull}\` and restart (docs/judges.md)`;
}

/** The model cache directory of the configuration. */
export function modelCacheDir(config: RagwatchConfig): string {
  return config.judge.local.cacheDir ?? defaultModelCacheDir();
}

/**
 * Builds the judge named by the configuration (`judge.kind`, which defaults to `llm` when an
 * endpoint is configured, else `embedded`, or `local` with `autoLocal` and a cached model); an LLM
 * judge also judges the `llm` evaluators. Judge usage series go to `options.instruments`; its
 * one-time adaptations to the endpoint are logged to `options.logger`.
 */
export function createJudge(config: RagwatchConfig, options: CreateJudgeOptions = {}): Judge {
  const j = config.judge;
  const kind = judgeKindOf(config, options.autoLocal);
  if (kind === 'embedded') return embeddedJudge(config);
  if (kind === 'local') return localJudge(config, options);
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
    ...(options.logger ? { logger: options.logger } : {}),
  });
}

/** The companion judge: the embedded judge next to an LLM judge when `judge.embedded.alongside` is set. */
export function createCompanionJudge(config: RagwatchConfig): Judge | undefined {
  return config.judge.kind === 'llm' && config.judge.embedded.alongside ? embeddedJudge(config) : undefined;
}

function localJudge(config: RagwatchConfig, options: CreateJudgeOptions): LocalJudge {
  const { model, cacheDir: _dir, ...local } = config.judge.local;
  const shed = options.instruments?.judgeShed;
  const depth = options.instruments?.judgeQueueDepth;
  return new LocalJudge({
    ...local,
    model: model || DEFAULT_LOCAL_MODEL,
    cache: new ModelCache(modelCacheDir(config)),
    // /examples labels a sentence unsupported where the answer would be flagged.
    sentenceFlagBelow: config.alerts.metrics.claim_support?.threshold ?? 0.3,
    embedded: { similarityThreshold: config.judge.embedded.similarityThreshold, threads: config.judge.embedded.threads, completenessRelevance: config.judge.embedded.completenessRelevance },
    ...(options.requireModel ? { requireModel: true } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(shed ? { onShed: (reason: string) => shed.inc({ judge: 'local', reason }) } : {}),
    ...(depth ? { onQueueDepth: (n: number) => depth.set({ judge: 'local' }, n) } : {}),
  });
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

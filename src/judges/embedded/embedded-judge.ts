/**
 * The embedded judge: no network, no API key. Uses the bundled sentence-embedding model for
 * response self-distinctness. Its series carry `judge="embedded"` and are never mixed with LLM scores.
 * @module
 */
import type { EmbeddingsModel } from '@energetic-ai/embeddings';
import { loadEmbeddingModel } from './model.ts';
import { RagwatchError, errorMessage } from '../../errors.ts';
import type { MetricName, SampledTriplet, ScoreDetails } from '../../triplet.ts';
import { cosine, selfDistinctness } from '../self-distinctness.ts';
import { splitSentences } from '../sentences.ts';
import type { Judge, JudgeResult } from '../types.ts';

/** Options of {@link EmbeddedJudge}; all optional. */
export interface EmbeddedJudgeOptions {
  /** Cosine similarity at or above which two sentences repeat each other. Default 0.8. */
  similarityThreshold?: number;
  /** Most sentences embedded per response (longer responses are truncated). Default 64. */
  maxSentences?: number;
}

export class EmbeddedJudge implements Judge {
  readonly kind = 'embedded' as const;
  readonly #threshold: number;
  readonly #maxSentences: number;
  #model: EmbeddingsModel | undefined;

  constructor(options: EmbeddedJudgeOptions = {}) {
    this.#threshold = options.similarityThreshold ?? 0.8;
    this.#maxSentences = options.maxSentences ?? 64;
  }

  get ready(): boolean {
    return this.#model !== undefined;
  }

  async init(): Promise<void> {
    if (this.#model) return;
    this.#model = await loadEmbeddingModel();
    // The first inference compiles kernels; do it now so the first real score is not slow.
    await this.#model.embed(['warm up']);
  }

  async score(triplet: SampledTriplet): Promise<JudgeResult> {
    const started = performance.now();
    try {
      if (!this.#model) await this.init();
      const model = this.#model!;
      const scores: Partial<Record<MetricName, number>> = {};
      const skipped: Partial<Record<MetricName, string>> = {};
      const details: ScoreDetails = { claims: [], subQuestions: [], sources: [], redundantSentences: [] };

      const sentences = splitSentences(triplet.response).slice(0, this.#maxSentences);
      if (sentences.length === 0) skipped.response_self_distinctness = 'empty_response';
      else if (sentences.length === 1) skipped.response_self_distinctness = 'single_sentence';
      else {
        const vectors = await model.embed(sentences);
        const sd = selfDistinctness(sentences.length, (i, j) => cosine(vectors[i]!, vectors[j]!) >= this.#threshold);
        scores.response_self_distinctness = sd.score;
        details.redundantSentences = sd.redundantPairs;
      }
      return { ok: true, scores, skipped, details, usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: performance.now() - started } };
    } catch (err) {
      return { ok: false, retriable: false, error: new RagwatchError('RAGWATCH_JUDGE_FAILED', `embedded judge failed: ${errorMessage(err)}`, { cause: err }) };
    }
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

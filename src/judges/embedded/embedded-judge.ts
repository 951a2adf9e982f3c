/**
 * The embedded judge: no network, no API key. The bundled sentence-embedding model scores
 * response self-distinctness and HCAT's relevance proxies (`context_relevancy`, `answer_relevancy`);
 * a lexical check scores `grounding_lexical` (numbers and entities of the response found in the
 * sources). Its series carry `judge="embedded"` and are never mixed with LLM-judge scores.
 * @module
 */
import { RagwatchError, errorMessage } from '../../errors.ts';
import { queryInContext, type MetricScores, type MetricSkips, type SampledTriplet, type ScoreDetails } from '../../triplet.ts';
import { CachedEmbedder, sharedEmbedder } from './cached-embedder.ts';
import { selfDistinctness, cosine } from '../self-distinctness.ts';
import { splitSentences } from '../sentences.ts';
import type { Judge, JudgeResult, SentenceEmbedder } from '../types.ts';
import { groundingLexical } from './lexical.ts';
import { DEFAULT_EMBEDDING_THREADS, loadEmbeddingModel } from './model.ts';
import { completeness } from './completeness.ts';
import { meanMaxSimilarity } from './relevance.ts';

/** Options of {@link EmbeddedJudge}; all optional. */
export interface EmbeddedJudgeOptions {
  /** A source sentence is relevant to the query (completeness) from this cosine on. Default 0.45. */
  completenessRelevance?: number;
  /** Cosine similarity at or above which two sentences repeat each other. Default 0.8. */
  similarityThreshold?: number;
  /** Most sentences embedded per text (query, response, all sources together). Default 64. */
  maxSentences?: number;
  /** Sentence embeddings cached by text (LRU entries; retrieved chunks repeat). Default 10000. */
  embeddingCacheSize?: number;
  /** Worker threads running the model (0: this thread, blocking it during inference). Default 2. */
  threads?: number;
}

export class EmbeddedJudge implements Judge {
  readonly kind = 'embedded' as const;
  readonly #threshold: number;
  readonly #maxSentences: number;
  readonly #cacheSize: number | undefined;
  readonly #relevance: number;
  readonly #threads: number;
  #model: SentenceEmbedder | undefined;

  constructor(options: EmbeddedJudgeOptions = {}) {
    this.#threshold = options.similarityThreshold ?? 0.8;
    this.#maxSentences = options.maxSentences ?? 64;
    this.#cacheSize = options.embeddingCacheSize;
    this.#relevance = options.completenessRelevance ?? 0.45;
    this.#threads = options.threads ?? DEFAULT_EMBEDDING_THREADS;
  }

  get ready(): boolean {
    return this.#model !== undefined;
  }

  async init(): Promise<void> {
    if (this.#model) return;
    // Loading also warms the model (kernels compiled, WASM memory sized), so the first score is not slow.
    // The process-wide vector cache unless a size of its own is asked for.
    this.#model = this.#cacheSize === undefined ? await sharedEmbedder(this.#threads) : new CachedEmbedder(await loadEmbeddingModel(this.#threads), this.#cacheSize);
  }

  async score(triplet: SampledTriplet): Promise<JudgeResult> {
    const started = performance.now();
    try {
      if (!this.#model) await this.init();
      const scores: MetricScores = {};
      const skipped: MetricSkips = {};
      const details: ScoreDetails = { claims: [], subQuestions: [], sources: [], redundantSentences: [] };

      const query = splitSentences(queryInContext(triplet)).slice(0, this.#maxSentences);
      const response = splitSentences(triplet.response).slice(0, this.#maxSentences);
      const sources = triplet.sources.flatMap((s) => splitSentences(s.content)).slice(0, this.#maxSentences);
      const vectors = await this.#model!.embed([...query, ...response, ...sources]);
      const q = vectors.slice(0, query.length);
      const r = vectors.slice(query.length, query.length + response.length);
      const s = vectors.slice(query.length + response.length);

      if (response.length === 0) skipped.response_self_distinctness = 'empty_response';
      else if (response.length === 1) skipped.response_self_distinctness = 'single_sentence';
      else {
        const sd = selfDistinctness(response.length, (i, j) => cosine(r[i]!, r[j]!) >= this.#threshold);
        scores.response_self_distinctness = sd.score;
        details.redundantSentences = sd.redundantPairs;
      }

      const contextRelevancy = meanMaxSimilarity(q, s);
      if (contextRelevancy !== undefined) scores.context_relevancy = contextRelevancy;
      else skipped.context_relevancy = query.length === 0 ? 'empty_query' : 'no_sources';
      const answerRelevancy = meanMaxSimilarity(r, q);
      if (answerRelevancy !== undefined) scores.answer_relevancy = answerRelevancy;
      else skipped.answer_relevancy = response.length === 0 ? 'empty_response' : 'empty_query';

      // HCAT §3.3 on the vectors above: no extra model pass.
      const complete = completeness(q, s, r, this.#relevance);
      if (complete) {
        scores.completeness = complete.completeness;
        scores.completeness_distribution = complete.distribution;
        details.uncoveredSources = complete.leastCovered.slice(0, 3).map((i) => sources[i]!);
      } else {
        const why = response.length === 0 ? 'empty_response' : query.length === 0 ? 'empty_query' : 'no_sources';
        skipped.completeness = why;
        skipped.completeness_distribution = why;
      }

      const lexical = groundingLexical(triplet.response, triplet.sources.map((x) => x.content));
      if (lexical.ok) scores.grounding_lexical = lexical.score;
      else skipped.grounding_lexical = lexical.skipped;
      details.unsupportedTokens = lexical.unsupported;
      // No model bundled here can classify toxicity (HCAT §4): skipped and counted, never guessed.
      skipped.non_toxic = 'no_toxicity_model';

      return { ok: true, scores, skipped, details, usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: performance.now() - started } };
    } catch (err) {
      return { ok: false, retriable: false, error: new RagwatchError('RAGWATCH_JUDGE_FAILED', `embedded judge failed: ${errorMessage(err)}`, { cause: err }) };
    }
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * The LLM judge: THELMA's six metrics plus claim-level faithfulness / hallucination_free and the
 * response's toxicity (`non_toxic`, asked inside the response-match call), from at most three
 * batched calls per triplet (decompose; response match ∥ source match), with source
 * facts cached by content hash and whole results cached by (triplet text, judge config). The
 * configured `llm` evaluators take one more call, in parallel with these (`llm-evaluators.ts`).
 * Self-distinctness uses sentence embeddings. Every call runs with tracing suppressed.
 * @module
 */
import { RagwatchError, errorMessage } from '../../errors.ts';
import { withTracingSuppressed } from '../../suppress-tracing.ts';
import type { SampledTriplet, ScoreDetails, Usage } from '../../triplet.ts';
import { aggregateVerdicts, type ClaimVerdicts, type SourceVerdicts, type SubQuestionVerdicts } from '../aggregate.ts';
import { BoundedCache, contentHash } from '../cache.ts';
import { DEFAULT_EMBEDDING_THREADS, loadEmbeddingModel } from '../embedded/model.ts';
import { scoreSelfDistinctness } from '../self-distinctness.ts';
import { splitSentences } from '../sentences.ts';
import type { Judge, JudgeResult, JudgeScores, SentenceEmbedder } from '../types.ts';
import { LlmClient, type LlmClientOptions } from './client.ts';
import type { LlmEvaluator } from './evaluator-step.ts';
import { LlmEvaluators, evaluatorData } from './llm-evaluators.ts';
import { PROMPT_VERSION, decomposeStep, responseMatchStep, sourceMatchStep } from './steps.ts';
import { runStep, type Step, type StepOutcome } from './step.ts';

/** Options of {@link LlmJudge}; all optional. Client options are passed to {@link LlmClient}. */
export interface LlmJudgeOptions extends LlmClientOptions {
  /** Cosine at or above which two response sentences repeat each other. Default 0.8. */
  similarityThreshold?: number;
  /** Most response sentences embedded for self-distinctness. Default 64. */
  maxSentences?: number;
  /** Source-fact cache entries (0 disables). Default 10000. */
  factCacheSize?: number;
  /** Whole-result cache entries (0 disables). Default 1000. */
  resultCacheSize?: number;
  /** Sentence embedder for self-distinctness. Default: the bundled USE-lite model. */
  embedder?: SentenceEmbedder;
  /** Worker threads running the bundled model when no `embedder` is given (0: this thread). Default 2. */
  embeddingThreads?: number;
  /** The configured `llm` evaluators (`evaluators:` of `kind: llm`), judged in one extra call per triplet. Default none. */
  evaluators?: readonly LlmEvaluator[];
  /**
   * Judge the retrieval too: `source_precision`, `source_fact_precision` and `source_query_coverage`
   * (the sources' facts in the first call, the source-match call). `false`: two calls a triplet instead
   * of three and no source facts asked for; those three metrics are skipped as `disabled`. Default true.
   */
  sourceMetrics?: boolean;
}

/** The metrics only the source-match call (and the sources' facts) can score. */
export const SOURCE_METRICS = ['source_precision', 'source_fact_precision', 'source_query_coverage'] as const;

type Cached = Omit<JudgeScores, 'usage'>;

export class LlmJudge implements Judge {
  readonly kind = 'llm' as const;
  readonly model: string;
  readonly #client: LlmClient;
  readonly #threshold: number;
  readonly #maxSentences: number;
  readonly #sourceMetrics: boolean;
  readonly #facts: BoundedCache<string[]>;
  readonly #results: BoundedCache<Cached>;
  readonly #embedder: SentenceEmbedder;
  /** Worker threads of the bundled model; undefined when an `embedder` was given. */
  readonly #bundledThreads: number | undefined;
  readonly #evaluators: LlmEvaluators | undefined;
  #ready = false;
  #closed = false;
  readonly #abort = new AbortController();

  constructor(options: LlmJudgeOptions = {}) {
    this.#client = new LlmClient(options);
    this.model = this.#client.model;
    this.#threshold = options.similarityThreshold ?? 0.8;
    this.#maxSentences = options.maxSentences ?? 64;
    this.#sourceMetrics = options.sourceMetrics ?? true;
    this.#facts = new BoundedCache(options.factCacheSize ?? 10_000);
    this.#results = new BoundedCache(options.resultCacheSize ?? 1000);
    const threads = options.embeddingThreads ?? DEFAULT_EMBEDDING_THREADS;
    this.#bundledThreads = options.embedder ? undefined : threads;
    this.#embedder = options.embedder ?? { embed: async (texts) => (await loadEmbeddingModel(threads)).embed(texts) };
    this.#evaluators = options.evaluators && options.evaluators.length > 0 ? new LlmEvaluators(this.#client, options.evaluators, { cacheSize: options.resultCacheSize ?? 1000 }) : undefined;
  }

  get ready(): boolean {
    return this.#ready;
  }

  /** The client's circuit-breaker state. */
  get breakerState(): 'closed' | 'open' | 'half_open' {
    return this.#client.breakerState;
  }

  async init(): Promise<void> {
    if (this.#ready) return;
    if (this.#bundledThreads !== undefined) await loadEmbeddingModel(this.#bundledThreads);
    this.#ready = true;
  }

  score(triplet: SampledTriplet, options: { signal?: AbortSignal } = {}): Promise<JudgeResult> {
    if (this.#closed) return Promise.resolve({ ok: false, retriable: true, error: new RagwatchError('RAGWATCH_SHUTDOWN', 'judge is shut down') });
    // A per-score signal: listeners the HTTP layer adds die with it instead of piling up on the judge's.
    const signal = AbortSignal.any(options.signal ? [options.signal, this.#abort.signal] : [this.#abort.signal]);
    return withTracingSuppressed(() => this.#scoreAll(triplet, signal)).catch((err: unknown) => ({
      ok: false as const,
      retriable: false,
      error: new RagwatchError('RAGWATCH_JUDGE_FAILED', `llm judge failed: ${errorMessage(err)}`, { cause: err }),
    }));
  }

  /** The built-in metrics and the evaluators' call, in parallel; the evaluators' results join the record. */
  async #scoreAll(triplet: SampledTriplet, signal: AbortSignal): Promise<JudgeResult> {
    const started = performance.now();
    const usage: Usage = { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 };
    const [builtins, evaluations] = await Promise.all([this.#score(triplet, usage, signal), this.#evaluators?.judge(evaluatorData(triplet), usage, signal)]);
    usage.durationMs = performance.now() - started;
    if (!builtins.ok) return builtins;
    if (!evaluations) return { ...builtins, usage };
    if (!evaluations.ok) return evaluations;
    const details = Object.keys(evaluations.explanations).length > 0 ? { ...builtins.details, evaluators: evaluations.explanations } : builtins.details;
    return { ok: true, scores: { ...builtins.scores, ...evaluations.scores }, skipped: { ...builtins.skipped, ...evaluations.skipped }, details, usage };
  }

  /** The built-in metrics (at most three calls; whole results cached). */
  async #score(triplet: SampledTriplet, usage: Usage, signal: AbortSignal): Promise<JudgeResult> {
    const { response } = triplet;
    let query = triplet.query;
    // An uncondensed follow-up is graded with its earlier turns: the decompose call rewrites it to stand alone.
    const history = triplet.conversation && triplet.conversation.typedQuery === undefined ? triplet.conversation.history : [];
    const resultKey = contentHash('result', PROMPT_VERSION, this.model, String(this.#threshold), String(this.#sourceMetrics), query, response, ...triplet.sources.map((s) => s.content), ...history.map((t) => `${t.role}:${t.content}`));
    const hit = this.#results.get(resultKey);
    if (hit) return { ok: true, ...structuredClone(hit), usage };

    const sources = triplet.sources.map((s, index) => ({ id: `s${index + 1}`, index, content: s.content, factKey: contentHash('facts', PROMPT_VERSION, this.model, s.content) }));
    const facts = new Map<string, string[]>();
    for (const s of sources) {
      const cached = this.#facts.get(s.factKey);
      if (cached) facts.set(s.id, cached);
    }
    const missing = this.#sourceMetrics ? sources.filter((s) => !facts.has(s.id)) : [];
    const hasResponse = response.trim() !== '';
    // Skip reasons become label values: keep them a closed set (the error itself is not a label).
    const sdPromise = scoreSelfDistinctness((t) => this.#embedder.embed(t), splitSentences(response).slice(0, this.#maxSentences), this.#threshold).catch(
      () => ({ ok: false as const, skipped: 'embedding_failed' }),
    );

    let subQuestionTexts: string[] = [];
    let claimTexts: string[] = [];
    if (query.trim() !== '' || hasResponse || missing.length > 0) {
      const dec = await this.#run(decomposeStep(query, response, missing, query.trim() === '' ? [] : history), usage, signal);
      if (!dec.ok) return dec;
      if (dec.value.standaloneQuery !== undefined) query = dec.value.standaloneQuery;
      subQuestionTexts = query.trim() === '' ? [] : dec.value.subQuestions;
      claimTexts = hasResponse ? dec.value.claims : [];
      for (const s of missing) {
        const got = dec.value.facts.get(s.id) ?? [];
        facts.set(s.id, got);
        this.#facts.set(s.factKey, got);
      }
    }
    const claims = claimTexts.map((text, i) => ({ id: `c${i + 1}`, text }));
    const subQuestions = subQuestionTexts.map((text, i) => ({ id: `q${i + 1}`, text }));
    const withFacts = sources.map((s) => ({ ...s, facts: (facts.get(s.id) ?? []).map((text, i) => ({ id: `${s.id}f${i + 1}`, text })) }));

    // Every non-empty response is matched, even one without claims: toxicity is judged in this call.
    const needResponseMatch = hasResponse;
    const [rm, sm] = await Promise.all([
      needResponseMatch ? this.#run(responseMatchStep(query, response, sources, claims, hasResponse ? subQuestions : []), usage, signal) : undefined,
      this.#sourceMetrics && sources.length > 0 ? this.#run(sourceMatchStep(query, withFacts, subQuestions), usage, signal) : undefined,
    ]);
    if (rm && !rm.ok) return rm;
    if (sm && !sm.ok) return sm;

    const hasSources = sources.length > 0;
    const claimVerdicts: ClaimVerdicts[] = claims.map((c) => {
      const v = rm!.value.claims.get(c.id)!;
      return hasSources ? { text: c.text, essential: v.essential, verdict: v.verdict } : { text: c.text, essential: v.essential };
    });
    const subQuestionVerdicts: SubQuestionVerdicts[] = subQuestions.map((q) => {
      const out: SubQuestionVerdicts = { text: q.text };
      const bySources = sm?.value.coveredBySources.get(q.id);
      const byResponse = rm?.value.coveredByResponse.get(q.id);
      if (bySources !== undefined) out.coveredBySources = bySources;
      if (byResponse !== undefined) out.coveredByResponse = byResponse;
      return out;
    });
    // Sources not judged (`sourceMetrics: false`) still ground the claims: placeholders keep them counted.
    const sourceVerdicts: SourceVerdicts[] = withFacts.map((s) => {
      const v = sm?.value.sources.get(s.id);
      return v ? { index: s.index, essential: v.essential, facts: s.facts.map((f) => ({ text: f.text, essential: v.facts.get(f.id)! })) } : { index: s.index, essential: false, facts: [] };
    });
    const { scores, skipped } = aggregateVerdicts({ claims: claimVerdicts, subQuestions: subQuestionVerdicts, sources: sourceVerdicts, hasResponse });
    if (!this.#sourceMetrics) {
      for (const m of SOURCE_METRICS) {
        delete scores[m];
        skipped[m] = 'disabled';
      }
    }

    const details: ScoreDetails = {
      claims: claimVerdicts.map((c) => ({ ...c })),
      subQuestions: subQuestionVerdicts,
      sources: sm ? sourceVerdicts.map((s) => ({ index: s.index, essential: s.essential })) : [],
      redundantSentences: [],
    };
    if (query !== triplet.query) details.standaloneQuery = query;
    if (rm) {
      scores.non_toxic = rm.value.toxicity.toxic ? 0 : 1;
      if (rm.value.toxicity.toxic) details.toxicity = rm.value.toxicity.categories;
    } else skipped.non_toxic = 'empty_response';
    const sd = await sdPromise;
    if (sd.ok) {
      scores.response_self_distinctness = sd.score;
      details.redundantSentences = sd.redundantPairs;
    } else skipped.response_self_distinctness = sd.skipped;

    const result: Cached = { scores, skipped, details };
    this.#results.set(resultKey, structuredClone(result));
    return { ok: true, ...result, usage };
  }

  #run<T>(step: Step<T>, usage: Usage, signal: AbortSignal): Promise<StepOutcome<T>> {
    return runStep(this.#client, step, usage, signal);
  }

  shutdown(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      this.#abort.abort(new RagwatchError('RAGWATCH_SHUTDOWN', 'judge shut down'));
    }
    return Promise.resolve();
  }
}

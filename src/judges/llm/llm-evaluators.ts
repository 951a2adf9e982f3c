/**
 * Judges a triplet's `llm` evaluators in one call through the LLM judge's client (its retries, circuit
 * breaker, token limiter and usage accounting): at most one repair call when the answer, or a field of
 * it, is malformed — the built-in steps' repair ({@link repairCall}: a cut answer asked afresh with
 * repeats penalised); a field still malformed after it leaves its metric skipped (`malformed_output`),
 * never scored. Results are cached by (evaluators, model, texts) like the built-in results.
 * A transport failure that may pass (429, 5xx, timeouts) fails the triplet as the built-in calls do
 * (the scorer retries it; the built-in results are cached); one that will not (a 4xx) skips the
 * evaluators (`judge_error`) and keeps the triplet's other scores.
 * @module
 */
import type { ScoreDetails, SampledTriplet, Usage } from '../../triplet.ts';
import { BoundedCache, contentHash } from '../cache.ts';
import type { JudgeFailure } from '../types.ts';
import type { LlmClient } from './client.ts';
import { EVALUATOR_PROMPT_VERSION, evaluatorStep, type EvaluatorData, type EvaluatorVerdict, type LlmEvaluator } from './evaluator-step.ts';
import { failureReason } from './outcomes.ts';
import { invalidProblem, repairCall } from './step.ts';

/** Scores, skips and explanations of the `llm` evaluators of one triplet. */
export interface LlmEvaluations {
  scores: Record<string, number>;
  skipped: Record<string, string>;
  explanations: NonNullable<ScoreDetails['evaluators']>;
}

/** Options of {@link LlmEvaluators}. */
export interface LlmEvaluatorsOptions {
  /** Cached results (0 disables). Default 1000. */
  cacheSize?: number;
}

/** The texts of `triplet` the evaluators may read (the earlier turns of its conversation, when it has one). */
export function evaluatorData(triplet: Pick<SampledTriplet, 'query' | 'sources' | 'response' | 'conversation'>): EvaluatorData {
  return { query: triplet.query, sources: triplet.sources.map((s) => s.content), response: triplet.response, history: triplet.conversation?.history ?? [] };
}

export class LlmEvaluators {
  readonly #client: LlmClient;
  readonly #evaluators: readonly LlmEvaluator[];
  readonly #definitionKey: string;
  readonly #cache: BoundedCache<LlmEvaluations>;

  constructor(client: LlmClient, evaluators: readonly LlmEvaluator[], options: LlmEvaluatorsOptions = {}) {
    this.#client = client;
    this.#evaluators = evaluators;
    this.#definitionKey = JSON.stringify(evaluators);
    this.#cache = new BoundedCache(options.cacheSize ?? 1000);
  }

  /** Names of the evaluators judged. */
  get names(): string[] {
    return this.#evaluators.map((e) => e.name);
  }

  /** One call (and at most one repair) for every evaluator; usage is added to `usage`. */
  async judge(data: EvaluatorData, usage: Usage, signal?: AbortSignal): Promise<({ ok: true } & LlmEvaluations) | JudgeFailure> {
    if (this.#evaluators.length === 0) return { ok: true, scores: {}, skipped: {}, explanations: {} };
    const key = contentHash('evaluators', EVALUATOR_PROMPT_VERSION, this.#client.model, this.#definitionKey, data.query, data.response, ...data.sources, ...data.history.map((t) => `${t.role}:${t.content}`));
    const hit = this.#cache.get(key);
    if (hit) return { ok: true, ...structuredClone(hit) };

    const step = evaluatorStep(data, this.#evaluators);
    const verdicts = new Map<string, EvaluatorVerdict>();
    let messages = step.messages;
    let frequencyPenalty: number | undefined;
    for (let attempt = 0; attempt < 2; attempt++) {
      const res = await this.#client.complete(
        { messages, schemaName: `ragwatch_${step.name}`, jsonSchema: step.jsonSchema, ...(step.outputTokens !== undefined ? { outputTokens: step.outputTokens } : {}), ...(frequencyPenalty !== undefined ? { frequencyPenalty } : {}) },
        signal,
      );
      if (!res.ok) {
        this.#client.noteOutcome(step.name, failureReason(res.error.code, res.error.message));
        if (res.retriable) return res;
        return { ok: true, ...this.#skipAll(verdicts, 'judge_error') };
      }
      usage.calls++;
      usage.inputTokens += res.inputTokens;
      usage.outputTokens += res.outputTokens;
      const parsed = step.parse(res.content);
      const problems = new Map<string, string>();
      if (!parsed.ok) for (const e of this.#evaluators) if (!verdicts.has(e.name)) problems.set(e.name, parsed.problem);
      if (parsed.ok) {
        for (const [name, v] of parsed.value.verdicts) verdicts.set(name, v);
        for (const [name, p] of parsed.value.problems) if (!verdicts.has(name)) problems.set(name, p);
      }
      if (problems.size === 0 || attempt === 1) {
        this.#client.noteOutcome(step.name, problems.size === 0 ? (attempt === 0 ? 'valid_first_try' : 'valid_after_repair') : res.truncated ? 'truncated' : 'malformed');
        break;
      }
      // The same repair as the built-in steps': a cut answer is asked afresh with repeats penalised.
      ({ messages, frequencyPenalty } = repairCall(step, res, invalidProblem(res, [...problems.values()].slice(0, 3).join('; '))));
    }
    const result = this.#skipAll(verdicts, 'malformed_output');
    // A malformed answer is not cached: the next sight of the same texts asks again.
    if (Object.keys(result.skipped).length === 0) this.#cache.set(key, structuredClone(result));
    return { ok: true, ...result };
  }

  /** The verdicts as scores and explanations; every evaluator without one skipped with `reason`. */
  #skipAll(verdicts: ReadonlyMap<string, EvaluatorVerdict>, reason: string): LlmEvaluations {
    const out: LlmEvaluations = { scores: {}, skipped: {}, explanations: {} };
    for (const e of this.#evaluators) {
      const v = verdicts.get(e.name);
      if (!v) {
        out.skipped[e.name] = reason;
        continue;
      }
      out.scores[e.name] = v.value;
      out.explanations[e.name] = { ...(v.label !== undefined ? { label: v.label } : {}), reason: v.reason };
    }
    return out;
  }
}

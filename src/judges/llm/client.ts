/**
 * The LLM judge client: one chat completion with structured JSON output over any OpenAI-compatible
 * endpoint (`openai` package), with a per-call timeout, bounded concurrency, a tokens-per-minute
 * limiter, retries on 408/409/425/429/5xx/timeouts (exponential backoff, jitter, `Retry-After`),
 * a circuit breaker, and usage accounting. Returns result objects; never throws.
 *
 * Made for small local models too (docs/judges.md, "Local and small models"): a refused request part
 * (`json_schema`, `seed`, `strict`) is adapted once and sent again (`endpoint-adapter.ts`, logged once,
 * `ragwatch_judge_adaptations_total`); without a fixed `timeoutMs` each call's time budget follows the
 * endpoint's observed pace (`time-budget.ts`); each call asks for no more output than its step needs, and
 * within the model's context window when it is known (configured, or named by a refusal); a prompt that
 * cannot fit fails as `RAGWATCH_JUDGE_CONTEXT_EXCEEDED`. Every step's outcome is counted by reason
 * ({@link LlmClient.noteOutcome}).
 * @module
 */
import { APIConnectionTimeoutError, APIError, APIUserAbortError, OpenAI } from 'openai';
import { Agent, fetch as undiciFetch } from 'undici';
import { RagwatchError, errorMessage } from '../../errors.ts';
import { silentLogger, type Logger } from '../../log.ts';
import type { Instruments } from '../../telemetry/instruments.ts';
import type { JudgeFailure } from '../types.ts';
import { CircuitBreaker } from './circuit-breaker.ts';
import { EndpointAdapter, type Adaptation } from './endpoint-adapter.ts';
import { CODE_BY_OUTCOME, estimateTokens, sleep, type RequestOutcome as Outcome, type StepOutcomeReason } from './outcomes.ts';
import { backoffMs, isRetriableStatus, parseRetryAfterMs } from './retry-policy.ts';
import { Semaphore } from './semaphore.ts';
import { TimeBudget } from './time-budget.ts';
import { TokenLimiter } from './token-limiter.ts';

/** One chat message. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** One structured-output request. */
export interface ChatRequest {
  messages: ChatMessage[];
  /** Name of the JSON schema (`response_format.json_schema.name`). */
  schemaName: string;
  /** JSON schema the answer must match (strict structured output where supported). */
  jsonSchema: Record<string, unknown>;
  /** The schema a grammar-constrained server is given (`json_object` + schema), when tighter than `jsonSchema`. Default `jsonSchema`. */
  grammarSchema?: Record<string, unknown>;
  /** Most output tokens this call needs (its step's estimate); capped by `maxOutputTokens`. Default `maxOutputTokens`. */
  outputTokens?: number;
  /** Penalty on tokens already written (`frequency_penalty`), for a call sent again after the model repeated itself; dropped once if the endpoint refuses it. Default none. */
  frequencyPenalty?: number;
}

/** A completed request: the raw message content (not yet validated) and its token usage. */
export interface ChatSuccess {
  ok: true;
  content: string;
  inputTokens: number;
  outputTokens: number;
  durationMs: number;
  /** The endpoint stopped the answer at `max_tokens` (`finish_reason: length`): a small model looping in a list. */
  truncated?: boolean;
}

export type ChatResult = ChatSuccess | JudgeFailure;

/** Options of {@link LlmClient}; all optional (defaults match `judge.llm` in the config). */
export interface LlmClientOptions {
  baseUrl?: string;
  apiKey?: string;
  /** Default `gpt-4o-mini`. */
  model?: string;
  /**
   * Fixed per-call timeout in milliseconds. Default none: each call's budget follows the endpoint's
   * observed pace, at least 30 s and at most 30 min (`time-budget.ts`).
   */
  timeoutMs?: number | undefined;
  /** The model's context window in tokens. Default: unknown until the endpoint names it in a refusal. */
  contextTokens?: number | undefined;
  /** Default 3. */
  maxRetries?: number;
  /** Default 500. */
  retryBaseMs?: number;
  /** Default 20000. */
  retryMaxMs?: number;
  /** Default 60000. */
  maxRetryAfterMs?: number;
  /** Default 4. */
  maxConcurrentRequests?: number;
  /** 0 = unlimited. Default 0. */
  tokensPerMinute?: number;
  /** Default 4096. */
  maxOutputTokens?: number;
  /** Default 0. */
  temperature?: number;
  /** null = not sent. Default 0. */
  seed?: number | null;
  /** Default `json_schema`. */
  structuredOutput?: 'json_schema' | 'json_object';
  /** Default 5. */
  breakerFailureThreshold?: number;
  /** Default 30000. */
  breakerCooldownMs?: number;
  /** Price per million tokens by model, for the cost counter. Default none. */
  prices?: Record<string, { inputPerMillion: number; outputPerMillion: number }>;
  /** Where request/token/latency/cost series go. Default: not recorded. */
  instruments?: Instruments;
  /** Random source for jitter (tests). Default `Math.random`. */
  random?: () => number;
  /** Where the one-time adaptations to the endpoint are logged. Default: not logged. */
  logger?: Logger;
}

type AttemptFailure = { ok: false; outcome: Outcome; retriable: boolean; retryAfterMs?: number; error: RagwatchError; adapted?: Adaptation; stale?: boolean };

// Node's fetch drops a response whose headers take more than 300 s (undici's headersTimeout): a
// non-streamed answer of a CPU server queued behind others takes longer. The per-call budget decides.
const patientAgent = new Agent({ headersTimeout: 0, bodyTimeout: 0 });
const patientFetch = (url: string | URL | Request, init?: RequestInit) => undiciFetch(url as never, { ...(init as object), dispatcher: patientAgent } as never) as unknown as Promise<Response>;

/** Calls one OpenAI-compatible endpoint for the judge steps (see the module comment). */
export class LlmClient {
  /** Model name sent with every request. */
  readonly model: string;
  readonly #openai: OpenAI;
  readonly #o: Required<Omit<LlmClientOptions, 'baseUrl' | 'apiKey' | 'instruments' | 'model' | 'timeoutMs' | 'contextTokens' | 'logger' | 'temperature' | 'seed' | 'structuredOutput'>>;
  readonly #timeoutMs: number | undefined;
  readonly #instruments: Instruments | undefined;
  readonly #logger: Logger;
  readonly #breaker: CircuitBreaker;
  readonly #limiter: TokenLimiter;
  readonly #semaphore: Semaphore;
  readonly #adapter: EndpointAdapter;
  readonly #budget = new TimeBudget();

  constructor(options: LlmClientOptions = {}) {
    this.model = options.model ?? 'gpt-4o-mini';
    this.#o = {
      maxRetries: options.maxRetries ?? 3,
      retryBaseMs: options.retryBaseMs ?? 500,
      retryMaxMs: options.retryMaxMs ?? 20_000,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
      maxConcurrentRequests: options.maxConcurrentRequests ?? 4,
      tokensPerMinute: options.tokensPerMinute ?? 0,
      maxOutputTokens: options.maxOutputTokens ?? 4096,
      breakerFailureThreshold: options.breakerFailureThreshold ?? 5,
      breakerCooldownMs: options.breakerCooldownMs ?? 30_000,
      prices: options.prices ?? {},
      random: options.random ?? Math.random,
    };
    this.#timeoutMs = options.timeoutMs;
    this.#instruments = options.instruments;
    this.#logger = options.logger ?? silentLogger;
    this.#adapter = new EndpointAdapter({ output: options.structuredOutput ?? 'json_schema', seed: options.seed === undefined ? 0 : options.seed, temperature: options.temperature ?? 0, contextTokens: options.contextTokens });
    // Local endpoints (vLLM, Ollama) need no key, but the SDK refuses to start without one.
    this.#openai = new OpenAI({ apiKey: options.apiKey ?? 'no-key', ...(options.baseUrl ? { baseURL: options.baseUrl } : {}), maxRetries: 0, fetch: patientFetch });
    this.#breaker = new CircuitBreaker({ failureThreshold: this.#o.breakerFailureThreshold, cooldownMs: this.#o.breakerCooldownMs });
    this.#limiter = new TokenLimiter({ tokensPerMinute: this.#o.tokensPerMinute });
    this.#semaphore = new Semaphore(this.#o.maxConcurrentRequests);
  }

  /** The circuit breaker's state (for readiness and tests). */
  get breakerState(): 'closed' | 'open' | 'half_open' {
    return this.#breaker.state;
  }

  /** How JSON is asked for now (after the endpoint's refusals). */
  get outputMode(): EndpointAdapter['output'] {
    return this.#adapter.output;
  }

  /** The model's context window in tokens, when configured or learned; else undefined. */
  get contextTokens(): number | undefined {
    return this.#adapter.contextTokens;
  }

  /** Records how one step ended (`ragwatch_judge_answers_total`, `ragwatch_judge_failures_total`). */
  noteOutcome(step: string, outcome: StepOutcomeReason): void {
    if (outcome === 'aborted') return;
    if (outcome === 'valid_first_try' || outcome === 'valid_after_repair') this.#instruments?.judgeAnswers.inc({ step, outcome });
    else {
      if (outcome === 'malformed' || outcome === 'truncated') this.#instruments?.judgeAnswers.inc({ step, outcome: 'invalid_after_repair' });
      this.#instruments?.judgeFailures.inc({ step, reason: outcome });
      this.#instruments?.judgeLastFailure.set({ step, reason: outcome }, Date.now() / 1000);
    }
  }

  /** Sends one request with retries; the answer's content is returned unvalidated. */
  async complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatResult> {
    const gate = this.#breaker.acquire();
    if (!gate.allowed) {
      this.#instruments?.judgeRequests.inc({ outcome: 'circuit_open' });
      return { ok: false, retriable: true, retryAfterMs: gate.retryAfterMs, error: new RagwatchError('RAGWATCH_JUDGE_CIRCUIT_OPEN', `judge circuit breaker open; retry in ${gate.retryAfterMs} ms`) };
    }
    const promptTokens = estimateTokens(request.messages.reduce((n, m) => n + m.content.length, 0));
    const estimate = promptTokens + 512;
    for (let attempt = 0; ; attempt++) {
      const room = this.#outputRoom(request, promptTokens);
      if (room === undefined) {
        return { ok: false, retriable: false, error: new RagwatchError('RAGWATCH_JUDGE_CONTEXT_EXCEEDED', `judge prompt of about ${promptTokens} tokens does not fit the model's context window of ${this.#adapter.contextTokens} tokens with room for its answer`) };
      }
      try {
        await this.#limiter.reserve(estimate, signal);
      } catch (err) {
        return { ok: false, retriable: true, error: new RagwatchError('RAGWATCH_SHUTDOWN', 'judge request aborted', { cause: err }) };
      }
      const result = await this.#semaphore.run(() => this.#attempt(request, promptTokens, room, signal));
      this.#limiter.adjust(estimate, result.ok ? result.inputTokens + result.outputTokens : estimate);
      if (result.ok) {
        this.#breaker.onSuccess();
        return result;
      }
      if (result.stale) {
        // Refused in a shape another call has already adapted (calls in flight at the first refusal).
        attempt--;
        continue;
      }
      if (result.adapted) {
        // The endpoint refused a part of the request: it is sent again at once without it (not a retry).
        this.#instruments?.judgeAdaptations.inc({ change: result.adapted });
        this.#logger.warn({ model: this.model, change: result.adapted, refusal: result.error.message.slice(0, 300) }, `judge endpoint refused part of the request; adapting once: ${result.adapted}`);
        attempt--;
        continue;
      }
      if (!result.retriable) {
        if (result.error.code !== 'RAGWATCH_SHUTDOWN') this.#breaker.onSuccess();
        return { ok: false, retriable: false, error: result.error };
      }
      const delay = result.retryAfterMs ?? backoffMs(attempt + 1, this.#o.retryBaseMs, this.#o.retryMaxMs, this.#o.random);
      if (attempt >= this.#o.maxRetries || delay > this.#o.maxRetryAfterMs) {
        this.#breaker.onFailure();
        const retryAfterMs = result.retryAfterMs ?? delay;
        return { ok: false, retriable: true, retryAfterMs, error: result.error };
      }
      try {
        await sleep(delay, signal);
      } catch (err) {
        return { ok: false, retriable: true, error: new RagwatchError('RAGWATCH_SHUTDOWN', 'judge request aborted', { cause: err }) };
      }
    }
  }

  /** The call's `max_tokens`: its step's need, within `maxOutputTokens` and the context window; undefined when no useful room is left. */
  #outputRoom(request: ChatRequest, promptTokens: number): number | undefined {
    const want = Math.min(this.#o.maxOutputTokens, request.outputTokens ?? this.#o.maxOutputTokens);
    const window = this.#adapter.contextTokens;
    if (window === undefined) return want;
    const room = window - promptTokens - 8;
    return room < Math.min(want, 64) ? undefined : Math.min(want, room);
  }

  async #attempt(request: ChatRequest, promptTokens: number, maxTokens: number, signal?: AbortSignal): Promise<ChatSuccess | AttemptFailure> {
    const started = performance.now();
    const shape = this.#adapter.shape(request.schemaName, request.jsonSchema, request.grammarSchema, request.frequencyPenalty);
    const generation = this.#adapter.generation;
    const slot = this.#budget.start(promptTokens, maxTokens);
    const timeoutMs = this.#timeoutMs ?? slot.budgetMs;
    let outcome: Outcome = 'ok';
    try {
      const completion = await this.#openai.chat.completions.create(
        {
          model: this.model,
          messages: request.messages,
          max_tokens: maxTokens,
          ...(shape.temperature !== undefined ? { temperature: shape.temperature } : {}),
          ...(shape.responseFormat ? { response_format: shape.responseFormat as unknown as OpenAI.ResponseFormatJSONObject } : {}),
          ...(shape.seed !== undefined ? { seed: shape.seed } : {}),
          ...(shape.frequencyPenalty !== undefined ? { frequency_penalty: shape.frequencyPenalty } : {}),
        },
        { timeout: timeoutMs, maxRetries: 0, ...(signal ? { signal } : {}) },
      );
      const inputTokens = completion.usage?.prompt_tokens ?? 0;
      const outputTokens = completion.usage?.completion_tokens ?? 0;
      const durationMs = performance.now() - started;
      slot.end({ input: inputTokens || promptTokens, output: outputTokens, durationMs });
      this.#account(inputTokens, outputTokens);
      const choice = completion.choices[0];
      return { ok: true, content: choice?.message?.content ?? '', inputTokens, outputTokens, durationMs, ...(choice?.finish_reason === 'length' ? { truncated: true } : {}) };
    } catch (err) {
      const failure = this.#classify(err, timeoutMs, generation);
      outcome = failure.outcome;
      return failure;
    } finally {
      slot.end();
      this.#instruments?.judgeRequests.inc({ outcome });
      this.#instruments?.judgeRequestDuration.observe({ outcome }, (performance.now() - started) / 1000);
    }
  }

  #classify(err: unknown, timeoutMs: number, generation: number): AttemptFailure {
    if (err instanceof APIConnectionTimeoutError) {
      if (this.#timeoutMs === undefined) this.#budget.timedOut();
      return { ok: false, outcome: 'timeout', retriable: true, error: new RagwatchError('RAGWATCH_JUDGE_TIMEOUT', `judge request timed out after ${timeoutMs} ms`, { cause: err }) };
    }
    if (err instanceof APIUserAbortError) {
      return { ok: false, outcome: 'network_error', retriable: false, error: new RagwatchError('RAGWATCH_SHUTDOWN', 'judge request aborted', { cause: err }) };
    }
    if (err instanceof APIError && typeof err.status === 'number') {
      const status = err.status;
      const message = errorMessage(err);
      if (status !== 429 && this.#adapter.learnContext(message)) {
        return { ok: false, outcome: 'client_error', retriable: false, error: new RagwatchError('RAGWATCH_JUDGE_CONTEXT_EXCEEDED', `judge endpoint answered ${status}: the prompt does not fit the model's context window: ${message}`, { cause: err }) };
      }
      const outcome: Outcome = status === 429 ? 'rate_limited' : status >= 500 ? 'server_error' : 'client_error';
      const retryAfterMs = parseRetryAfterMs(err.headers);
      const failure: AttemptFailure = {
        ok: false,
        outcome,
        retriable: isRetriableStatus(status),
        error: new RagwatchError(CODE_BY_OUTCOME[outcome], `judge endpoint answered ${status}: ${message}`, { cause: err }),
      };
      if (retryAfterMs !== undefined) failure.retryAfterMs = retryAfterMs;
      // A refusal of a shape another call has adapted since this one was sent is not adapted again.
      if (generation !== this.#adapter.generation && (status === 400 || status === 422 || status === 500)) failure.stale = true;
      else {
        const adapted = this.#adapter.adapt(status, message);
        if (adapted) failure.adapted = adapted;
      }
      return failure;
    }
    return { ok: false, outcome: 'network_error', retriable: true, error: new RagwatchError('RAGWATCH_JUDGE_UNAVAILABLE', `judge endpoint unreachable: ${errorMessage(err)}`, { cause: err }) };
  }

  #account(inputTokens: number, outputTokens: number): void {
    const instruments = this.#instruments;
    if (!instruments) return;
    instruments.judgeTokens.inc({ type: 'input' }, inputTokens);
    instruments.judgeTokens.inc({ type: 'output' }, outputTokens);
    const price = this.#o.prices[this.model];
    if (price) instruments.judgeCost.inc({ model: this.model }, (inputTokens * price.inputPerMillion + outputTokens * price.outputPerMillion) / 1e6);
  }
}

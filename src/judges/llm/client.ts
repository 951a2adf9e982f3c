/**
 * The LLM judge client: one chat completion with structured JSON output over any OpenAI-compatible
 * endpoint (`openai` package), with a per-call timeout, bounded concurrency, a tokens-per-minute
 * limiter, retries on 408/409/425/429/5xx/timeouts (exponential backoff, jitter, `Retry-After`),
 * a circuit breaker, and usage accounting. Returns result objects; never throws.
 * @module
 */
import { APIConnectionTimeoutError, APIError, APIUserAbortError, OpenAI } from 'openai';
import { RagwatchError, errorMessage, type RagwatchErrorCode } from '../../errors.ts';
import type { Instruments } from '../../telemetry/instruments.ts';
import type { JudgeFailure } from '../types.ts';
import { CircuitBreaker } from './circuit-breaker.ts';
import { backoffMs, isRetriableStatus, parseRetryAfterMs } from './retry-policy.ts';
import { Semaphore } from './semaphore.ts';
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
}

/** A completed request: the raw message content (not yet validated) and its token usage. */
export interface ChatSuccess {
  ok: true;
  content: string;
  inputTokens: number;
  outputTokens: number;
  durationMs: number;
}

export type ChatResult = ChatSuccess | JudgeFailure;

/** Options of {@link LlmClient}; all optional (defaults match `judge.llm` in the config). */
export interface LlmClientOptions {
  baseUrl?: string;
  apiKey?: string;
  /** Default `gpt-4o-mini`. */
  model?: string;
  /** Default 30000. */
  timeoutMs?: number;
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
}

type Outcome = 'ok' | 'rate_limited' | 'server_error' | 'timeout' | 'network_error' | 'client_error' | 'circuit_open';
type AttemptFailure = { ok: false; outcome: Outcome; retriable: boolean; retryAfterMs?: number; error: RagwatchError; formatUnsupported?: boolean };

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    }, { once: true });
  });

const CODE_BY_OUTCOME: Record<Outcome, RagwatchErrorCode> = {
  ok: 'RAGWATCH_JUDGE_FAILED',
  rate_limited: 'RAGWATCH_JUDGE_RATE_LIMITED',
  server_error: 'RAGWATCH_JUDGE_UNAVAILABLE',
  timeout: 'RAGWATCH_JUDGE_TIMEOUT',
  network_error: 'RAGWATCH_JUDGE_UNAVAILABLE',
  client_error: 'RAGWATCH_JUDGE_REJECTED',
  circuit_open: 'RAGWATCH_JUDGE_CIRCUIT_OPEN',
};

export class LlmClient {
  /** Model name sent with every request. */
  readonly model: string;
  readonly #openai: OpenAI;
  readonly #o: Required<Omit<LlmClientOptions, 'baseUrl' | 'apiKey' | 'instruments' | 'model'>>;
  readonly #instruments: Instruments | undefined;
  readonly #breaker: CircuitBreaker;
  readonly #limiter: TokenLimiter;
  readonly #semaphore: Semaphore;
  #format: 'json_schema' | 'json_object';

  constructor(options: LlmClientOptions = {}) {
    this.model = options.model ?? 'gpt-4o-mini';
    this.#o = {
      timeoutMs: options.timeoutMs ?? 30_000,
      maxRetries: options.maxRetries ?? 3,
      retryBaseMs: options.retryBaseMs ?? 500,
      retryMaxMs: options.retryMaxMs ?? 20_000,
      maxRetryAfterMs: options.maxRetryAfterMs ?? 60_000,
      maxConcurrentRequests: options.maxConcurrentRequests ?? 4,
      tokensPerMinute: options.tokensPerMinute ?? 0,
      maxOutputTokens: options.maxOutputTokens ?? 4096,
      temperature: options.temperature ?? 0,
      seed: options.seed === undefined ? 0 : options.seed,
      structuredOutput: options.structuredOutput ?? 'json_schema',
      breakerFailureThreshold: options.breakerFailureThreshold ?? 5,
      breakerCooldownMs: options.breakerCooldownMs ?? 30_000,
      prices: options.prices ?? {},
      random: options.random ?? Math.random,
    };
    this.#instruments = options.instruments;
    this.#format = this.#o.structuredOutput;
    // Local endpoints (vLLM, Ollama) need no key, but the SDK refuses to start without one.
    this.#openai = new OpenAI({ apiKey: options.apiKey ?? 'no-key', ...(options.baseUrl ? { baseURL: options.baseUrl } : {}), maxRetries: 0, timeout: this.#o.timeoutMs });
    this.#breaker = new CircuitBreaker({ failureThreshold: this.#o.breakerFailureThreshold, cooldownMs: this.#o.breakerCooldownMs });
    this.#limiter = new TokenLimiter({ tokensPerMinute: this.#o.tokensPerMinute });
    this.#semaphore = new Semaphore(this.#o.maxConcurrentRequests);
  }

  /** The circuit breaker's state (for readiness and tests). */
  get breakerState(): 'closed' | 'open' | 'half_open' {
    return this.#breaker.state;
  }

  /** Sends one request with retries; the answer's content is returned unvalidated. */
  async complete(request: ChatRequest, signal?: AbortSignal): Promise<ChatResult> {
    const gate = this.#breaker.acquire();
    if (!gate.allowed) {
      this.#instruments?.judgeRequests.inc({ outcome: 'circuit_open' });
      return { ok: false, retriable: true, retryAfterMs: gate.retryAfterMs, error: new RagwatchError('RAGWATCH_JUDGE_CIRCUIT_OPEN', `judge circuit breaker open; retry in ${gate.retryAfterMs} ms`) };
    }
    const estimate = Math.ceil(request.messages.reduce((n, m) => n + m.content.length, 0) / 4) + 512;
    let formatFallbackUsed = false;
    for (let attempt = 0; ; attempt++) {
      try {
        await this.#limiter.reserve(estimate, signal);
      } catch (err) {
        return { ok: false, retriable: true, error: new RagwatchError('RAGWATCH_SHUTDOWN', 'judge request aborted', { cause: err }) };
      }
      const result = await this.#semaphore.run(() => this.#attempt(request, signal));
      this.#limiter.adjust(estimate, result.ok ? result.inputTokens + result.outputTokens : estimate);
      if (result.ok) {
        this.#breaker.onSuccess();
        return result;
      }
      if (result.formatUnsupported && !formatFallbackUsed) {
        // The endpoint rejects json_schema: switch this client to JSON mode (validated by zod) for good.
        formatFallbackUsed = true;
        this.#format = 'json_object';
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

  async #attempt(request: ChatRequest, signal?: AbortSignal): Promise<ChatSuccess | AttemptFailure> {
    const started = performance.now();
    const o = this.#o;
    const responseFormat =
      this.#format === 'json_schema'
        ? { type: 'json_schema' as const, json_schema: { name: request.schemaName, strict: true, schema: request.jsonSchema } }
        : { type: 'json_object' as const };
    let outcome: Outcome = 'ok';
    try {
      const completion = await this.#openai.chat.completions.create(
        {
          model: this.model,
          messages: request.messages,
          temperature: o.temperature,
          max_tokens: o.maxOutputTokens,
          response_format: responseFormat,
          ...(o.seed === null ? {} : { seed: o.seed }),
        },
        { timeout: o.timeoutMs, maxRetries: 0, ...(signal ? { signal } : {}) },
      );
      const inputTokens = completion.usage?.prompt_tokens ?? 0;
      const outputTokens = completion.usage?.completion_tokens ?? 0;
      this.#account(inputTokens, outputTokens);
      return { ok: true, content: completion.choices[0]?.message?.content ?? '', inputTokens, outputTokens, durationMs: performance.now() - started };
    } catch (err) {
      const failure = this.#classify(err);
      outcome = failure.outcome;
      return failure;
    } finally {
      this.#instruments?.judgeRequests.inc({ outcome });
      this.#instruments?.judgeRequestDuration.observe({ outcome }, (performance.now() - started) / 1000);
    }
  }

  #classify(err: unknown): AttemptFailure {
    if (err instanceof APIConnectionTimeoutError) {
      return { ok: false, outcome: 'timeout', retriable: true, error: new RagwatchError('RAGWATCH_JUDGE_TIMEOUT', `judge request timed out after ${this.#o.timeoutMs} ms`, { cause: err }) };
    }
    if (err instanceof APIUserAbortError) {
      return { ok: false, outcome: 'network_error', retriable: false, error: new RagwatchError('RAGWATCH_SHUTDOWN', 'judge request aborted', { cause: err }) };
    }
    if (err instanceof APIError && typeof err.status === 'number') {
      const status = err.status;
      const outcome: Outcome = status === 429 ? 'rate_limited' : status >= 500 ? 'server_error' : 'client_error';
      const retryAfterMs = parseRetryAfterMs(err.headers);
      const failure: AttemptFailure = {
        ok: false,
        outcome,
        retriable: isRetriableStatus(status),
        error: new RagwatchError(CODE_BY_OUTCOME[outcome], `judge endpoint answered ${status}: ${errorMessage(err)}`, { cause: err }),
      };
      if (retryAfterMs !== undefined) failure.retryAfterMs = retryAfterMs;
      if (status === 400 && this.#format === 'json_schema' && /response_format|json_schema|structured/i.test(errorMessage(err))) failure.formatUnsupported = true;
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

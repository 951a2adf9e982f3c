/**
 * What one judge endpoint accepts, learned from its refusals: local OpenAI-compatible servers (llama.cpp's
 * server, llama-cpp-python, Ollama, vLLM, LM Studio) refuse parts of a request a hosted endpoint takes —
 * `response_format: json_schema` (llama-cpp-python answers HTTP 500 with a validation error), `seed`,
 * `strict` — or have a context window smaller than the prompt. Each refusal moves the endpoint one step
 * down a fixed ladder, once, and is reported by the caller (a log line and a counter): the request is then
 * sent again at once, not counted as a retry. Structured output goes down
 * `json_schema` → `json_object` with the schema beside it (llama-cpp-python's grammar-constrained JSON)
 * → plain `json_object` → no `response_format` (the prompt alone asks for JSON; the answer is validated
 * as always).
 * @module
 */

/** How the answer's JSON is asked for, best first. */
export type OutputMode = 'json_schema' | 'json_object_schema' | 'json_object' | 'prompt_only';

const LADDER: readonly OutputMode[] = ['json_schema', 'json_object_schema', 'json_object', 'prompt_only'];

/** One change made after a refusal (the `change` label of `ragwatch_judge_adaptations_total`). */
export type Adaptation = `output:${OutputMode}` | 'seed:dropped' | 'strict:dropped' | 'temperature:dropped' | 'frequency_penalty:dropped';

/** Statuses a refusal of a request part comes with (llama-cpp-python: 500 for its validation errors). */
const REFUSAL_STATUSES = new Set([400, 422, 500]);

const FORMAT_WORDS = /response_format|json_schema|json_object|structured output|grammar|\bschema\b/i;
// "exceed context window of 2048" (llama.cpp), "maximum context length is 8192 tokens" (OpenAI, vLLM),
// "context size (4096)" / "n_ctx" (llama.cpp's server, Ollama).
const CONTEXT_PATTERNS = [/context (?:window|length|size)[^\d]{0,40}?(\d{3,7})/i, /n_ctx[^\d]{0,10}(\d{3,7})/i];
const CONTEXT_WORDS = /context (?:window|length|size)|n_ctx|too many tokens|prompt is too long/i;

/** The request parts as the endpoint currently accepts them. */
export interface RequestShape {
  responseFormat?: Record<string, unknown>;
  seed?: number;
  temperature?: number;
  frequencyPenalty?: number;
}

/** Options of {@link EndpointAdapter}. */
export interface EndpointAdapterOptions {
  /** Where to start on the ladder. Default `json_schema`. */
  output?: 'json_schema' | 'json_object';
  /** Seed to send; null = none. Default 0. */
  seed?: number | null;
  /** Temperature to send. Default 0. */
  temperature?: number;
  /** The model's context window in tokens, when configured. Default: unknown until the endpoint names it. */
  contextTokens?: number | undefined;
}

/** The endpoint's accepted request shape, and what its refusals taught. */
export class EndpointAdapter {
  #output: OutputMode;
  #seed: number | null;
  #strict = true;
  #temperature: number | null;
  #penalty = true;
  #contextTokens: number | undefined;
  readonly #applied = new Set<Adaptation>();
  #generation = 0;

  constructor(options: EndpointAdapterOptions = {}) {
    this.#output = options.output ?? 'json_schema';
    this.#seed = options.seed === undefined ? 0 : options.seed;
    this.#temperature = options.temperature ?? 0;
    this.#contextTokens = options.contextTokens;
  }

  /** How JSON is asked for now. */
  get output(): OutputMode {
    return this.#output;
  }

  /** Counts the changes made: a refusal of a request sent before the last change is sent again as it is now. */
  get generation(): number {
    return this.#generation;
  }

  /** The context window in tokens: configured, or learned from a refusal; undefined when unknown. */
  get contextTokens(): number | undefined {
    return this.#contextTokens;
  }

  /** The request parts to send with a call whose answer must match `schema` (`grammarSchema`, when given, for a grammar-constrained `json_object`), and the call's `frequencyPenalty` while the endpoint takes one. */
  shape(schemaName: string, schema: Record<string, unknown>, grammarSchema: Record<string, unknown> = schema, frequencyPenalty?: number): RequestShape {
    const out: RequestShape = {};
    if (this.#output === 'json_schema') out.responseFormat = { type: 'json_schema', json_schema: { name: schemaName, ...(this.#strict ? { strict: true } : {}), schema } };
    else if (this.#output === 'json_object_schema') out.responseFormat = { type: 'json_object', schema: grammarSchema };
    else if (this.#output === 'json_object') out.responseFormat = { type: 'json_object' };
    if (this.#seed !== null) out.seed = this.#seed;
    if (this.#temperature !== null) out.temperature = this.#temperature;
    if (frequencyPenalty !== undefined && this.#penalty) out.frequencyPenalty = frequencyPenalty;
    return out;
  }

  /**
   * Reads a refused request (status and error message) and changes the shape once for what was refused.
   * @returns the change made (the caller logs it and sends again), or undefined when nothing is left to change
   */
  adapt(status: number, message: string): Adaptation | undefined {
    if (!REFUSAL_STATUSES.has(status) || isContextOverflow(message)) return undefined;
    const refused = (word: string) => new RegExp(`\\b${word}\\b`, 'i').test(message);
    if (this.#strict && this.#output === 'json_schema' && refused('strict') && !/json_schema/i.test(message.replace(/strict/gi, ''))) return this.#apply('strict:dropped', () => (this.#strict = false));
    if (this.#seed !== null && refused('seed')) return this.#apply('seed:dropped', () => (this.#seed = null));
    if (this.#penalty && refused('frequency_penalty')) return this.#apply('frequency_penalty:dropped', () => (this.#penalty = false));
    if (this.#temperature !== null && refused('temperature') && !FORMAT_WORDS.test(message)) return this.#apply('temperature:dropped', () => (this.#temperature = null));
    if (FORMAT_WORDS.test(message) || (status === 400 && this.#output !== 'prompt_only' && /unrecognized|unsupported|not supported|extra (?:fields|inputs)/i.test(message))) {
      const next = LADDER[LADDER.indexOf(this.#output) + 1];
      if (next === undefined) return undefined;
      return this.#apply(`output:${next}`, () => (this.#output = next));
    }
    return undefined;
  }

  /** Learns the context window from a refusal that names it; true when the message is a context overflow. */
  learnContext(message: string): boolean {
    if (!isContextOverflow(message)) return false;
    for (const pattern of CONTEXT_PATTERNS) {
      const n = Number(pattern.exec(message)?.[1]);
      if (Number.isFinite(n) && n >= 256) {
        this.#contextTokens = this.#contextTokens === undefined ? n : Math.min(this.#contextTokens, n);
        break;
      }
    }
    return true;
  }

  #apply(change: Adaptation, doIt: () => void): Adaptation | undefined {
    if (this.#applied.has(change)) return undefined;
    this.#applied.add(change);
    this.#generation++;
    doIt();
    return change;
  }
}

/** True when an endpoint's error message says the prompt (with its output budget) does not fit the context window. */
export function isContextOverflow(message: string): boolean {
  return CONTEXT_WORDS.test(message) && /exceed|maximum|too (?:long|many|large)|larger than|greater than/i.test(message);
}

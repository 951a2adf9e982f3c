/**
 * The model runtime of the local judge: node-llama-cpp (llama.cpp's prebuilt binary, CPU; a GPU when
 * its build is installed and `gpu: auto`), loaded on first use only, never built and never
 * downloaded at run time. Inference runs on llama.cpp's own threads: the event loop only hands
 * tokens over and awaits. One context sequence, one evaluation at a time; the evaluated tokens stay
 * in its KV cache, so a prompt that starts like the last one (the same sources, the next sentence of
 * the same answer) only evaluates what differs.
 * @module
 */
import type { Llama, LlamaContext, LlamaContextSequence, LlamaModel, Token } from 'node-llama-cpp';

/** Options of {@link loadLocalRuntime}; all optional but the path. */
export interface LocalRuntimeOptions {
  /** The GGUF file (already verified). */
  modelPath: string;
  /** Threads evaluating tokens. Default 2. */
  threads?: number;
  /** Context window in tokens (prompt + the one token read). Default 4096. */
  contextTokens?: number;
  /** `auto` uses a GPU build of the runtime when one is installed; `off` never. Default `auto`. */
  gpu?: 'auto' | 'off';
}

/** One verdict read from the next-token distribution. */
export interface TokenVerdict {
  /** P(No) / (P(Yes) + P(No)): how likely the model says "not supported". */
  unsupported: number;
  /** P(Yes) + P(No): how much of the distribution the two answers hold (low = the model did not follow the question). */
  mass: number;
  /** Tokens in the prompt. */
  promptTokens: number;
  /** Tokens actually evaluated (the rest came from the KV cache). */
  evaluatedTokens: number;
}

/** A loaded model. */
export interface LocalRuntime {
  readonly contextTokens: number;
  /** True when a GPU build of the runtime was loaded. */
  readonly gpu: boolean;
  countTokens(text: string): number;
  /** Evaluates `prefix` + `suffix` and reads the verdict. Calls are serialised. */
  verdict(prefix: string, suffix: string): Promise<TokenVerdict>;
  /** Idempotent. */
  dispose(): Promise<void>;
}

/** Single-token spellings of the two answers (Qwen's and most BPE vocabularies have each as one token). */
const YES = ['Yes', 'yes', ' Yes', ' yes', 'YES'];
const NO = ['No', 'no', ' No', ' no', 'NO'];

/** Loads node-llama-cpp and the model. Throws when the runtime or the file cannot be loaded. */
export async function loadLocalRuntime(options: LocalRuntimeOptions): Promise<LocalRuntime> {
  const { getLlama } = await import('node-llama-cpp');
  const llama: Llama = await getLlama({ gpu: options.gpu === 'off' ? false : 'auto', build: 'never', progressLogs: false, logLevel: 'error' as never });
  const model: LlamaModel = await llama.loadModel({ modelPath: options.modelPath });
  const contextSize = Math.min(options.contextTokens ?? 4096, model.trainContextSize);
  const context: LlamaContext = await model.createContext({ contextSize, threads: options.threads ?? 2, sequences: 1 });
  return new NodeLlamaRuntime(llama, model, context, contextSize);
}

class NodeLlamaRuntime implements LocalRuntime {
  readonly contextTokens: number;
  readonly gpu: boolean;
  readonly #llama: Llama;
  readonly #model: LlamaModel;
  readonly #context: LlamaContext;
  readonly #sequence: LlamaContextSequence;
  readonly #yes: Token[];
  readonly #no: Token[];
  #chain: Promise<unknown> = Promise.resolve();
  #disposed = false;
  /** The last prefix and its tokens: every sentence of an answer repeats it (tokenised once, not per sentence). */
  #prefix: { text: string; tokens: Token[] } | undefined;

  constructor(llama: Llama, model: LlamaModel, context: LlamaContext, contextTokens: number) {
    this.#llama = llama;
    this.#model = model;
    this.#context = context;
    this.#sequence = context.getSequence();
    this.contextTokens = contextTokens;
    this.gpu = llama.gpu !== false;
    this.#yes = this.#singleTokens(YES);
    this.#no = this.#singleTokens(NO);
    if (this.#yes.length === 0 || this.#no.length === 0) throw new Error('the model has no single-token "Yes" / "No": it cannot be a local judge');
  }

  countTokens(text: string): number {
    return this.#model.tokenize(text, false).length;
  }

  verdict(prefix: string, suffix: string): Promise<TokenVerdict> {
    const run = this.#chain.then(() => this.#evaluate(prefix, suffix));
    this.#chain = run.catch(() => undefined);
    return run;
  }

  async #evaluate(prefix: string, suffix: string): Promise<TokenVerdict> {
    if (this.#disposed) throw new Error('the local model was shut down');
    // Each half tokenised on its own: the same prefix gives the same tokens whatever follows it.
    if (this.#prefix?.text !== prefix) this.#prefix = { text: prefix, tokens: this.#model.tokenize(prefix, true) };
    const tokens = [...this.#prefix.tokens, ...this.#model.tokenize(suffix, true)];
    if (tokens.length >= this.contextTokens) throw new Error(`prompt of ${tokens.length} tokens does not fit the context window of ${this.contextTokens}`);
    const held = this.#sequence.contextTokens;
    let keep = 0;
    while (keep < held.length && keep < tokens.length - 1 && held[keep] === tokens[keep]) keep++;
    if (keep < this.#sequence.nextTokenIndex) await this.#sequence.eraseContextTokenRanges([{ start: keep, end: this.#sequence.nextTokenIndex }]);
    const rest = tokens.slice(keep);
    const input = rest.map((t, i) => (i === rest.length - 1 ? ([t, { generateNext: { probabilities: true } }] as const) : t));
    const out = await this.#sequence.controlledEvaluate(input as never);
    const probabilities = out[rest.length - 1]?.next?.probabilities;
    if (!probabilities) throw new Error('the runtime returned no next-token probabilities');
    const sum = (ids: Token[]): number => ids.reduce((a, t) => a + (probabilities.get(t) ?? 0), 0);
    const yes = sum(this.#yes);
    const no = sum(this.#no);
    const mass = yes + no;
    return { unsupported: mass > 0 ? no / mass : 0.5, mass, promptTokens: tokens.length, evaluatedTokens: rest.length };
  }

  #singleTokens(words: readonly string[]): Token[] {
    const ids = new Set<Token>();
    for (const w of words) {
      const t = this.#model.tokenize(w, false);
      if (t.length === 1) ids.add(t[0]!);
    }
    return [...ids];
  }

  async dispose(): Promise<void> {
    if (this.#disposed) return;
    this.#disposed = true;
    await this.#chain;
    await this.#context.dispose();
    await this.#model.dispose();
    await this.#llama.dispose();
  }
}

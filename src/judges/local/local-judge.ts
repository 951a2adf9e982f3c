/**
 * The local judge (DESIGN §8): an open instruct model run in ragwatch's own process on the CPU asks,
 * per response sentence, whether the sources support it, and reads the answer from the next-token
 * probabilities. `claim_support` is the support of the least-supported sentence: one unsupported
 * sentence is enough to flag an answer. Every embedded metric (the lexical check among them) is scored
 * beside it in the same record, so the two flag independently (docs/judges.md: an answer is flagged
 * when either is below its threshold). Series carry `judge="local"`.
 *
 * The model is a budgeted resource: what the queue or the rate budget cannot take keeps its other
 * scores and has `claim_support` skipped as shed, counted. A model missing from the cache is one log
 * line naming the command; the judge keeps scoring the rest, says it is not ready, and loads the model
 * once it appears.
 * @module
 */
import { RagwatchError, errorMessage } from '../../errors.ts';
import { silentLogger, type Logger } from '../../log.ts';
import type { ModelCache } from '../../models/cache.ts';
import { queryInContext, type SampledTriplet } from '../../triplet.ts';
import { EmbeddedJudge, type EmbeddedJudgeOptions } from '../embedded/embedded-judge.ts';
import { splitSentences } from '../sentences.ts';
import type { Judge, JudgeResult } from '../types.ts';
import { Admission, type AdmissionOptions, type ShedReason } from './admission.ts';
import { buildPrompt } from './prompt.ts';
import type { LocalRuntime, LocalRuntimeOptions } from './runtime.ts';

/** Options of {@link LocalJudge}; all optional but the cache. */
export interface LocalJudgeOptions extends AdmissionOptions {
  /** Where models are kept. */
  cache: ModelCache;
  /** The model's name in the cache. Default `qwen2.5-coder-1.5b-instruct`. */
  model?: string;
  threads?: number;
  contextTokens?: number;
  gpu?: 'auto' | 'off';
  /** Most response sentences asked about per answer (the rest are not judged; counted in `usage`). Default 8. */
  maxSentences?: number;
  /** A sentence is labelled unsupported on /examples below this support (the role passes claim_support's threshold). Default 0.3. */
  sentenceFlagBelow?: number;
  /** `init()` fails when the model is missing (offline commands) instead of waiting for it. Default false. */
  requireModel?: boolean;
  /** How often a missing model is looked for again, in milliseconds. Default 30000. */
  retryMs?: number;
  embedded?: EmbeddedJudgeOptions;
  logger?: Logger;
  /** Counts shed answers (the role passes its instruments). */
  onShed?: (reason: ShedReason | 'model_not_loaded') => void;
  /** Told the queue's depth whenever it changes (the role sets its gauge). */
  onQueueDepth?: (depth: number) => void;
  /** Loads the runtime (tests pass a scripted one). Default node-llama-cpp. */
  loadRuntime?: (options: LocalRuntimeOptions) => Promise<LocalRuntime>;
}

/** The least probability mass "Yes" + "No" must hold for a verdict to count (else the model did not answer the question). */
const MIN_MASS = 0.5;

export class LocalJudge implements Judge {
  readonly kind = 'local' as const;
  readonly model: string;
  readonly #options: LocalJudgeOptions;
  readonly #embedded: EmbeddedJudge;
  readonly #admission: Admission;
  readonly #logger: Logger;
  #runtime: LocalRuntime | undefined;
  #loading: Promise<void> | undefined;
  #retry: NodeJS.Timeout | undefined;
  #missingSaid = false;
  #stopped = false;

  constructor(options: LocalJudgeOptions) {
    this.#options = options;
    this.model = options.model ?? 'qwen2.5-coder-1.5b-instruct';
    this.#embedded = new EmbeddedJudge(options.embedded);
    this.#admission = new Admission(options);
    this.#logger = options.logger ?? silentLogger;
  }

  /** Ready once the model is loaded (and the embedded judge beside it). */
  get ready(): boolean {
    return this.#runtime !== undefined && this.#embedded.ready;
  }

  /** Answers waiting for or in the model. */
  get queueDepth(): number {
    return this.#admission.depth;
  }

  async init(): Promise<void> {
    await this.#embedded.init();
    await (this.#loading ??= this.#load());
  }

  async #load(): Promise<void> {
    const { cache } = this.#options;
    let path: string;
    try {
      path = (await cache.verifiedForLoad(this.model)).path;
    } catch (err) {
      this.#loading = undefined;
      if (this.#options.requireModel || !(err instanceof RagwatchError) || err.code !== 'RAGWATCH_MODEL_MISSING') throw err;
      if (!this.#missingSaid) this.#logger.error(errorMessage(err));
      this.#missingSaid = true;
      if (!this.#stopped) this.#retry = setTimeout(() => void this.init().catch((e: unknown) => this.#logger.error({ err: e }, 'local judge model failed to load')), this.#options.retryMs ?? 30_000).unref();
      return;
    }
    const started = performance.now();
    const load = this.#options.loadRuntime ?? (async (o: LocalRuntimeOptions) => (await import('./runtime.ts')).loadLocalRuntime(o));
    try {
      const runtime = await load({ modelPath: path, ...pick(this.#options) });
      if (this.#stopped) await runtime.dispose();
      else this.#runtime = runtime;
      this.#logger.info({ model: this.model, path, loadMs: Math.round(performance.now() - started), gpu: runtime.gpu, contextTokens: runtime.contextTokens }, 'local judge model loaded');
    } catch (err) {
      this.#loading = undefined;
      throw new RagwatchError('RAGWATCH_MODEL_LOAD_FAILED', `local judge model ${this.model} (${path}) failed to load: ${errorMessage(err)}`, { cause: err });
    }
  }

  async score(triplet: SampledTriplet): Promise<JudgeResult> {
    const base = await this.#embedded.score(triplet);
    if (!base.ok) return base;
    const started = performance.now();
    const runtime = this.#runtime;
    const skip = (reason: string): JudgeResult => ({ ...base, skipped: { ...base.skipped, claim_support: reason } });
    if (!runtime) {
      this.#options.onShed?.('model_not_loaded');
      return skip('model_not_loaded');
    }
    const sentences = splitSentences(triplet.response).slice(0, this.#options.maxSentences ?? 8);
    if (sentences.length === 0) return skip('empty_response');
    if (triplet.sources.length === 0) return skip('no_sources');
    const admitted = this.#admission.admit();
    if (admitted !== true) {
      this.#options.onShed?.(admitted);
      return skip(`shed_${admitted}`);
    }
    this.#options.onQueueDepth?.(this.#admission.depth);
    const admittedAt = Date.now();
    try {
      const question = queryInContext(triplet);
      const document = this.#fitDocument(runtime, triplet, question);
      const claims: Array<{ text: string; verdict?: 'supported' | 'not_in_sources'; support?: number }> = [];
      let evaluated = 0;
      let weakest: number | undefined;
      for (const [i, sentence] of sentences.entries()) {
        // The wait counts only before the first sentence: an answer under way is finished.
        if (i === 0 && this.#admission.expired(admittedAt)) {
          this.#options.onShed?.('waited_too_long');
          return skip('shed_waited_too_long');
        }
        const p = buildPrompt({ document, question, answer: triplet.response, ...(sentences.length > 1 ? { sentence } : {}) });
        const v = await runtime.verdict(p.prefix, p.suffix);
        evaluated += v.evaluatedTokens;
        if (v.mass < MIN_MASS) {
          claims.push({ text: sentence });
          continue;
        }
        const support = 1 - v.unsupported;
        weakest = weakest === undefined ? support : Math.min(weakest, support);
        claims.push({ text: sentence, support, verdict: support < (this.#options.sentenceFlagBelow ?? 0.3) ? 'not_in_sources' : 'supported' });
      }
      const usage = { calls: base.usage.calls + sentences.length, inputTokens: base.usage.inputTokens + evaluated, outputTokens: base.usage.outputTokens, durationMs: base.usage.durationMs + (performance.now() - started) };
      const details = { ...base.details, claims };
      if (weakest === undefined) return { ...base, details, usage, skipped: { ...base.skipped, claim_support: 'model_off_protocol' } };
      return { ...base, details, usage, scores: { ...base.scores, claim_support: weakest } };
    } catch (err) {
      return { ok: false, retriable: false, error: new RagwatchError('RAGWATCH_JUDGE_FAILED', `local judge failed: ${errorMessage(err)}`, { cause: err }) };
    } finally {
      this.#admission.release();
      this.#options.onQueueDepth?.(this.#admission.depth);
    }
  }

  /** The sources joined, cut at the end to leave room for the question, the answer and the rules. */
  #fitDocument(runtime: LocalRuntime, triplet: SampledTriplet, question: string): string {
    const document = triplet.sources.map((s, i) => (triplet.sources.length > 1 ? `[${i + 1}] ${s.content}` : s.content)).join('\n\n');
    const room = runtime.contextTokens - 2 * runtime.countTokens(triplet.response) - runtime.countTokens(question) - 200;
    const tokens = runtime.countTokens(document);
    if (tokens <= room) return document;
    return document.slice(0, Math.max(0, Math.floor((document.length * room) / tokens) - 16));
  }

  async shutdown(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#retry);
    await this.#loading?.catch(() => undefined);
    const runtime = this.#runtime;
    this.#runtime = undefined;
    await runtime?.dispose();
    await this.#embedded.shutdown();
  }
}

function pick(o: LocalJudgeOptions): Omit<LocalRuntimeOptions, 'modelPath'> {
  return { ...(o.threads !== undefined ? { threads: o.threads } : {}), ...(o.contextTokens !== undefined ? { contextTokens: o.contextTokens } : {}), ...(o.gpu !== undefined ? { gpu: o.gpu } : {}) };
}


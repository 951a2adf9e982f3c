/**
 * Sentence embeddings from the judge endpoint's embeddings API (`judge.llm.embeddings: endpoint`),
 * for self-distinctness when the bundled model is not wanted.
 * @module
 */
import { OpenAI } from 'openai';
import type { SentenceEmbedder } from '../types.ts';

/** Options of {@link EndpointEmbedder}; all optional. */
export interface EndpointEmbedderOptions {
  baseUrl?: string;
  apiKey?: string;
  /** Default `text-embedding-3-small`. */
  model?: string;
  /** Per-request timeout. Default 30000. */
  timeoutMs?: number;
  /** Retries (the SDK's own policy: 408/409/429/5xx with backoff). Default 2. */
  maxRetries?: number;
}

export class EndpointEmbedder implements SentenceEmbedder {
  readonly #openai: OpenAI;
  readonly #model: string;

  constructor(options: EndpointEmbedderOptions = {}) {
    this.#model = options.model ?? 'text-embedding-3-small';
    this.#openai = new OpenAI({
      apiKey: options.apiKey ?? 'no-key',
      ...(options.baseUrl ? { baseURL: options.baseUrl } : {}),
      timeout: options.timeoutMs ?? 30_000,
      maxRetries: options.maxRetries ?? 2,
    });
  }

  async embed(texts: string[]): Promise<number[][]> {
    const res = await this.#openai.embeddings.create({ model: this.#model, input: texts });
    if (res.data.length !== texts.length) throw new Error(`embeddings endpoint returned ${res.data.length} vectors for ${texts.length} texts`);
    return [...res.data].sort((a, b) => a.index - b.index).map((d) => d.embedding);
  }
}

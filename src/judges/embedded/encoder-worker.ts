/**
 * Entry of an embedding worker thread ({@link EncoderPool}): loads and warms the bundled model
 * on this thread, then answers `{ id, texts }` with `{ id, vectors }` — the embeddings as one
 * transferred Float32Array, row-major, 512 floats per text — or `{ id, error }`.
 * @module
 */
import { parentPort } from 'node:worker_threads';
import { errorMessage } from '../../errors.ts';
import { EMBEDDING_DIMENSIONS, type WorkerReply, type WorkerRequest } from './encoder-pool.ts';
import { loadLocalEncoder } from './local-model.ts';

const port = parentPort;
if (!port) throw new Error('encoder-worker runs as a worker thread');
const post = (reply: WorkerReply, transfer: ArrayBuffer[] = []) => port.postMessage(reply, transfer);

try {
  const encoder = await loadLocalEncoder();
  port.on('message', (request: WorkerRequest) => {
    encoder.embed(request.texts).then(
      (rows) => {
        const vectors = new Float32Array(rows.length * EMBEDDING_DIMENSIONS);
        rows.forEach((row, i) => vectors.set(row, i * EMBEDDING_DIMENSIONS));
        post({ id: request.id, vectors }, [vectors.buffer]);
      },
      (err: unknown) => post({ id: request.id, error: errorMessage(err) }),
    );
  });
  post({ id: 0, ready: true });
} catch (err) {
  post({ id: 0, error: errorMessage(err) });
}

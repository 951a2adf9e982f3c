/**
 * Entry of an embedding worker thread ({@link EncoderPool}): loads and warms the bundled model
 * on this thread, then answers `{ id, texts }` with `{ id, vectors }` — the embeddings as one
 * transferred Float32Array, row-major, 512 floats per text — or `{ id, error }`.
 * @module
 */
import { getPriority, setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { errorMessage } from '../../errors.ts';
import { EMBEDDING_DIMENSIONS, WORKER_NICE_INCREMENT, type WorkerReply, type WorkerRequest } from './encoder-pool.ts';
import { loadLocalEncoder } from './local-model.ts';

const port = parentPort;
if (!port) throw new Error('encoder-worker runs as a worker thread');
const post = (reply: WorkerReply, transfer: ArrayBuffer[] = []) => port.postMessage(reply, transfer);

// Linux keeps a nice value per thread, and priority 0 means the calling thread: under CPU contention the
// event loop (ingest, /healthz, the host in plugin mode) runs before the model, which only waits longer.
// Set before the model loads, so the threads it may start inherit it. Elsewhere it renices the process:
// there it is skipped (macOS, Windows), and a refusal is harmless.
if (process.platform === 'linux') {
  try {
    setPriority(Math.min(19, getPriority() + WORKER_NICE_INCREMENT));
  } catch {
    // not permitted (a seccomp profile): the worker runs at its parent's priority
  }
}

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

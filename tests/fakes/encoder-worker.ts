/**
 * A scripted embedding worker for the pool's tests (the real one: src/judges/embedded/encoder-worker.ts).
 * Texts: `die` exits the thread, `error` answers with an error, `hang` is never answered; any
 * other text gets a vector filled with its length.
 */
import { parentPort } from 'node:worker_threads';

const port = parentPort!;
port.on('message', ({ id, texts }: { id: number; texts: string[] }) => {
  if (texts.includes('die')) process.exit(3);
  if (texts.includes('hang')) return;
  if (texts.includes('error')) return port.postMessage({ id, error: 'scripted model error' });
  const vectors = new Float32Array(texts.length * 512);
  texts.forEach((t, i) => vectors.fill(t.length, i * 512, (i + 1) * 512));
  port.postMessage({ id, vectors }, [vectors.buffer]);
});
port.postMessage({ id: 0, ready: true });

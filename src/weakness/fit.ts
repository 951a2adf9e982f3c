/**
 * Fits the topics of live questions on a worker thread of its own (one per fit: fits are rare).
 * @module
 */
import { siblingScript, startWorker } from '../threads.ts';
import type { TopicFitRequest } from './fit-worker.ts';
import type { TopicModel } from './topics.ts';

const WORKER_URL = siblingScript(import.meta.url, 'fit-worker');

/** The topic model of `questions` (k clusters of their `embeddings`), fitted off the calling thread. */
export function fitTopicsOffThread(request: TopicFitRequest): Promise<TopicModel> {
  return new Promise((resolve, reject) => {
    const worker = startWorker(WORKER_URL, { workerData: request });
    worker.once('message', (model: TopicModel) => {
      resolve(model);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`topic fit worker exited with code ${code} before answering`)));
  });
}

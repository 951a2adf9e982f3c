/**
 * Fits the topics of live questions on a worker thread of its own (one per fit: fits are rare).
 * @module
 */
import { runWorkerOnce, siblingScript } from '../threads.ts';
import type { TopicFitRequest } from './fit-worker.ts';
import type { TopicModel } from './topics.ts';

const WORKER_URL = siblingScript(import.meta.url, 'fit-worker');

/** The topic model of `questions` (k clusters of their `embeddings`), fitted off the calling thread. */
export function fitTopicsOffThread(request: TopicFitRequest): Promise<TopicModel> {
  return runWorkerOnce<TopicModel>(WORKER_URL, request);
}

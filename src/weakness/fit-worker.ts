/**
 * Worker thread of a live topic fit: spherical k-means over the warm-up's embeddings takes ~0.3 s for
 * 500 questions and ~6 s for 10,000 (`npm run bench`) — a stall the scoring thread must not see.
 * @module
 */
import { parentPort, workerData } from 'node:worker_threads';
import { fitTopics } from './topics.ts';

/** What the worker is given (as `workerData`). */
export interface TopicFitRequest {
  questions: string[];
  embeddings: number[][];
  k: number;
}

const req = workerData as TopicFitRequest;
parentPort?.postMessage(fitTopics(req.questions, req.embeddings, req.k).model);

/**
 * Runs the bundled embedding model on worker threads, so inference never blocks the event loop
 * (one model call holds a core for 5–40 ms) and one triplet's sentences are embedded on several
 * cores at once. Each worker loads its own copy of the model. A worker that dies is replaced on
 * the next call; its pending calls fail (the judge reports the triplet failed, nothing is scored).
 * This module does not load the model's library: with workers, the main thread never does.
 * @module
 */
import type { Worker } from 'node:worker_threads';
import { RagwatchError } from '../../errors.ts';
import { siblingScript, startWorker } from '../../threads.ts';
import type { SentenceEmbedder } from '../types.ts';

/** Length of an embedding. */
export const EMBEDDING_DIMENSIONS = 512;
/** How much nicer (lower in priority) than the thread that started it an embedding worker runs, on Linux. */
export const WORKER_NICE_INCREMENT = 10;
/** Default worker threads running the model: a triplet's sentences are split across them. */
export const DEFAULT_EMBEDDING_THREADS = 2;

/** Message to a worker: texts to embed. */
export interface WorkerRequest { id: number; texts: string[] }
/** Message from a worker: `ready` (id 0) once the model is loaded, then one reply per request. */
export type WorkerReply = { id: number; ready: true } | { id: number; vectors: Float32Array } | { id: number; error: string };

interface Pending { resolve(vectors: Float32Array): void; reject(err: Error): void; chars: number }

/** One worker thread and the requests it has not answered yet. */
class Slot {
  readonly worker: Worker;
  readonly ready: Promise<void>;
  readonly pending = new Map<number, Pending>();
  /** Characters of the texts queued on this worker: the pool gives new work to the least loaded. */
  queuedChars = 0;
  /** Why the worker is gone (set once); pending and later calls fail with it. */
  #deathCause: RagwatchError | undefined;

  constructor(script: URL, onDeath: (slot: Slot) => void) {
    this.worker = startWorker(script);
    this.ready = new Promise((resolve, reject) => {
      let loaded = false;
      const fail = (message: string) => {
        this.#die(new RagwatchError('RAGWATCH_JUDGE_FAILED', `embedding worker died: ${message}`));
        onDeath(this);
        if (!loaded) reject(new RagwatchError('RAGWATCH_MODEL_LOAD_FAILED', `failed to load the bundled embedding model in a worker thread: ${message}`));
      };
      this.worker.on('message', (reply: WorkerReply) => {
        if (reply.id === 0) {
          if ('ready' in reply) {
            loaded = true;
            this.worker.unref();
            resolve();
          } else if ('error' in reply) fail(reply.error);
          return;
        }
        const request = this.pending.get(reply.id);
        if (!request) return;
        this.#settled(reply.id, request);
        if ('vectors' in reply) request.resolve(reply.vectors);
        else if ('error' in reply) request.reject(new RagwatchError('RAGWATCH_JUDGE_FAILED', `embedding worker: ${reply.error}`));
      });
      this.worker.on('error', (err) => fail(err.message));
      this.worker.on('exit', (code) => fail(`exited with code ${code}`));
    });
    // A load failure is reported through `ready` to whoever awaits it; never unhandled.
    this.ready.catch(() => undefined);
  }

  get dead(): boolean {
    return this.#deathCause !== undefined;
  }

  send(id: number, texts: string[], request: Pending): void {
    if (this.#deathCause) return request.reject(this.#deathCause);
    // Referenced while answers are due: a CLI awaiting only this worker must not exit early.
    if (this.pending.size === 0) this.worker.ref();
    this.pending.set(id, request);
    this.queuedChars += request.chars;
    this.worker.postMessage({ id, texts } satisfies WorkerRequest);
  }

  #settled(id: number, request: Pending): void {
    this.pending.delete(id);
    this.queuedChars -= request.chars;
    if (this.pending.size === 0) this.worker.unref();
  }

  #die(err: RagwatchError): void {
    if (this.#deathCause) return;
    this.#deathCause = err;
    for (const [id, request] of this.pending) {
      this.#settled(id, request);
      request.reject(err);
    }
    void this.worker.terminate();
  }

  terminate(): Promise<void> {
    this.#die(new RagwatchError('RAGWATCH_SHUTDOWN', 'embedding workers are shut down'));
    return this.worker.terminate().then(() => undefined);
  }
}

/**
 * Splits texts into at most `groups` groups of similar total length (longest first, each to the
 * lightest group): returns the text indices of each non-empty group.
 */
export function balanceByLength(texts: readonly string[], groups: number): number[][] {
  const order = texts.map((_, i) => i).sort((a, b) => texts[b]!.length - texts[a]!.length);
  const out = Array.from({ length: Math.max(1, Math.min(groups, texts.length)) }, () => ({ indices: [] as number[], chars: 0 }));
  for (const i of order) {
    const lightest = out.reduce((best, g) => (g.chars < best.chars ? g : best));
    lightest.indices.push(i);
    lightest.chars += texts[i]!.length + 1;
  }
  return out.map((g) => g.indices).filter((g) => g.length > 0);
}

/** Options of {@link EncoderPool}; all optional. */
export interface EncoderPoolOptions {
  /** Worker threads, at least 1. Default {@link DEFAULT_EMBEDDING_THREADS}. */
  threads?: number;
  /** Worker script (tests). Default: `encoder-worker` beside this module. */
  workerUrl?: URL;
}

const WORKER_URL = siblingScript(import.meta.url, 'encoder-worker');

/** Embeds texts on worker threads, each running its own copy of the bundled model. */
export class EncoderPool implements SentenceEmbedder {
  readonly threads: number;
  readonly #script: URL;
  readonly #slots: Array<Slot | undefined>;
  #nextId = 1;
  #closed = false;

  constructor(options: EncoderPoolOptions = {}) {
    this.threads = Math.max(1, Math.floor(options.threads ?? DEFAULT_EMBEDDING_THREADS));
    this.#script = options.workerUrl ?? WORKER_URL;
    this.#slots = Array.from({ length: this.threads }, () => undefined);
  }

  /** Starts every worker and waits until each has loaded and warmed its model. */
  async init(): Promise<void> {
    await Promise.all(this.#slots.map((_, i) => this.#slot(i).ready));
  }

  /** 512-dimension embeddings of the texts, in order; one text's sentences spread over the workers. */
  async embed(texts: string[]): Promise<number[][]> {
    if (this.#closed) throw new RagwatchError('RAGWATCH_SHUTDOWN', 'embedding workers are shut down');
    const out: number[][] = new Array<number[]>(texts.length);
    const slots = this.#slots.map((_, i) => this.#slot(i)).sort((a, b) => a.queuedChars - b.queuedChars);
    await Promise.all(
      balanceByLength(texts, slots.length).map(async (indices, g) => {
        const slot = slots[g]!;
        await slot.ready;
        const group = indices.map((i) => texts[i]!);
        const vectors = await new Promise<Float32Array>((resolve, reject) =>
          slot.send(this.#nextId++, group, { resolve, reject, chars: group.reduce((n, t) => n + t.length, 0) }),
        );
        indices.forEach((i, k) => (out[i] = Array.from(vectors.subarray(k * EMBEDDING_DIMENSIONS, (k + 1) * EMBEDDING_DIMENSIONS))));
      }),
    );
    return out;
  }

  /** Terminates the workers; pending calls fail with `RAGWATCH_SHUTDOWN`. Idempotent. */
  async shutdown(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all(this.#slots.map((s) => s?.terminate()));
  }

  /** The live worker of slot `i`, started (again) when it has none. */
  #slot(i: number): Slot {
    const live = this.#slots[i];
    if (live && !live.dead) return live;
    const slot = new Slot(this.#script, (dead) => {
      if (this.#slots[i] === dead) this.#slots[i] = undefined;
    });
    this.#slots[i] = slot;
    return slot;
  }
}

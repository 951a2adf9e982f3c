/**
 * In-memory transport: the embedded default for `ragwatch start` and the plugin. A bounded
 * FIFO between capture and the scorer; when full the newest triplet is dropped and counted.
 * A `retry` result (judge back-pressure) pauses delivery for `retryAfterMs` and requeues the
 * triplet at the head with the next attempt number.
 * @module
 */
import type { TripletConsumer, TripletHandler, TripletProducer } from './types.ts';
import type { Instruments } from '../telemetry/instruments.ts';
import type { SampledTriplet } from '../triplet.ts';

/** Options of {@link MemoryTransport}. */
export interface MemoryTransportOptions {
  /** Queue bound; default 1000. */
  maxQueueSize?: number;
  /** Handlers running at once; default 2. */
  concurrency?: number;
  instruments: Instruments;
}

interface Queued {
  triplet: SampledTriplet;
  attempt: number;
}

/** Bounded in-process queue that is both the producer and the consumer. */
export class MemoryTransport implements TripletProducer, TripletConsumer {
  #queue: Queued[] = [];
  #head = 0;
  readonly #max: number;
  readonly #concurrency: number;
  readonly #instruments: Instruments;
  #handler: TripletHandler | undefined;
  #pausedUntilMs = 0;
  #resumeTimer: NodeJS.Timeout | undefined;
  #active = 0;
  #closed = false;
  #idleWaiters: Array<() => void> = [];

  constructor(options: MemoryTransportOptions) {
    this.#max = options.maxQueueSize ?? 1000;
    this.#concurrency = options.concurrency ?? 2;
    this.#instruments = options.instruments;
    this.#instruments.queueCapacity.set({ stage: 'transport' }, this.#max);
  }

  /** Triplets waiting (not yet handed to the scorer). */
  get depth(): number {
    return this.#queue.length - this.#head;
  }

  /** True once a handler is attached and until shutdown. */
  get running(): boolean {
    return this.#handler !== undefined && !this.#closed;
  }

  /** Enqueues; false when dropped (counted, and the triplet's `in_flight` settled). */
  send(triplet: SampledTriplet): boolean {
    if (this.#closed || this.depth >= this.#max) {
      this.#instruments.dropped.inc({ stage: 'transport', reason: this.#closed ? 'shutdown' : 'queue_full' });
      this.#instruments.inFlight.dec();
      return false;
    }
    this.#queue.push({ triplet, attempt: 1 });
    this.#instruments.queueSize.set({ stage: 'transport' }, this.depth);
    this.#pump();
    return true;
  }

  start(handler: TripletHandler): Promise<void> {
    this.#handler = handler;
    this.#pump();
    return Promise.resolve();
  }

  forceFlush(): Promise<void> {
    if (this.depth === 0 && this.#active === 0) return Promise.resolve();
    if (!this.#handler) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Stops accepting, lets queued work finish (the caller bounds the wait). Idempotent. */
  async shutdown(): Promise<void> {
    this.#closed = true;
    await this.forceFlush();
    if (this.#resumeTimer) clearTimeout(this.#resumeTimer);
  }

  /** Removes and returns what is still queued (handed back on a deadline shutdown). */
  drainUnhandled(): SampledTriplet[] {
    const rest = this.#queue.slice(this.#head).map((q) => q.triplet);
    this.#queue = [];
    this.#head = 0;
    this.#instruments.queueSize.set({ stage: 'transport' }, 0);
    this.#notifyIdle();
    return rest;
  }

  #pump(): void {
    const handler = this.#handler;
    if (!handler) return;
    const waitMs = this.#pausedUntilMs - Date.now();
    if (waitMs > 0) {
      this.#resumeTimer ??= setTimeout(() => {
        this.#resumeTimer = undefined;
        this.#pump();
      }, waitMs).unref();
      return;
    }
    while (this.#active < this.#concurrency && this.depth > 0) {
      const item = this.#queue[this.#head]!;
      this.#head++;
      if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue.splice(0, this.#head);
        this.#head = 0;
      }
      this.#instruments.queueSize.set({ stage: 'transport' }, this.depth);
      this.#active++;
      void handler(item.triplet, { attempt: item.attempt })
        .then((result) => {
          if (result.status !== 'retry') return;
          this.#pausedUntilMs = Math.max(this.#pausedUntilMs, Date.now() + result.retryAfterMs);
          this.#queue.splice(this.#head, 0, { triplet: item.triplet, attempt: item.attempt + 1 });
        })
        .catch(() => undefined)
        .finally(() => {
          this.#active--;
          // Yield to the event loop between jobs: judges finish in microtasks, and chaining the
          // next job directly would starve ingest and /healthz while the queue drains.
          setImmediate(() => {
            this.#pump();
            this.#notifyIdle();
          });
        });
    }
  }

  #notifyIdle(): void {
    if (this.depth === 0 && this.#active === 0) {
      const waiters = this.#idleWaiters;
      this.#idleWaiters = [];
      for (const w of waiters) w();
    }
  }
}

/**
 * In-memory transport: the embedded default for `ragwatch start` and the plugin. A bounded
 * FIFO between capture and the scorer; when full the newest triplet is dropped and counted.
 * @module
 */
import type { HandleResult, TripletConsumer, TripletProducer } from './types.ts';
import type { Instruments } from '../metrics/instruments.ts';
import type { SampledTriplet } from '../triplet.ts';

/** Options of {@link MemoryTransport}. */
export interface MemoryTransportOptions {
  /** Queue bound; default 1000. */
  maxQueueSize?: number;
  /** Handlers running at once; default 2. */
  concurrency?: number;
  instruments: Instruments;
}

export class MemoryTransport implements TripletProducer, TripletConsumer {
  readonly #queue: SampledTriplet[] = [];
  #head = 0;
  readonly #max: number;
  readonly #concurrency: number;
  readonly #instruments: Instruments;
  #handler: ((t: SampledTriplet) => Promise<HandleResult>) | undefined;
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

  send(triplet: SampledTriplet): boolean {
    if (this.#closed) {
      this.#instruments.dropped.inc({ stage: 'transport', reason: 'shutdown' });
      return false;
    }
    if (this.depth >= this.#max) {
      this.#instruments.dropped.inc({ stage: 'transport', reason: 'queue_full' });
      return false;
    }
    this.#queue.push(triplet);
    this.#instruments.queueSize.set({ stage: 'transport' }, this.depth);
    this.#pump();
    return true;
  }

  start(handler: (t: SampledTriplet) => Promise<HandleResult>): Promise<void> {
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
  }

  /** Removes and returns what is still queued (handed back on a deadline shutdown). */
  drainUnhandled(): SampledTriplet[] {
    const rest = this.#queue.slice(this.#head);
    this.#queue.length = 0;
    this.#head = 0;
    this.#instruments.queueSize.set({ stage: 'transport' }, 0);
    this.#notifyIdle();
    return rest;
  }

  #pump(): void {
    const handler = this.#handler;
    if (!handler) return;
    while (this.#active < this.#concurrency && this.depth > 0) {
      const triplet = this.#queue[this.#head]!;
      this.#head++;
      if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue.splice(0, this.#head);
        this.#head = 0;
      }
      this.#instruments.queueSize.set({ stage: 'transport' }, this.depth);
      this.#active++;
      void handler(triplet)
        .catch(() => undefined)
        .finally(() => {
          this.#active--;
          this.#pump();
          this.#notifyIdle();
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

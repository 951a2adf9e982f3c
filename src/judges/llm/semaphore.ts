/**
 * A counting semaphore bounding the judge requests in flight (FIFO, abortable waits).
 * @module
 */

export class Semaphore {
  readonly #max: number;
  #active = 0;
  readonly #waiters: Array<() => void> = [];

  constructor(max: number) {
    this.#max = Math.max(1, max);
  }

  /** Requests in flight. */
  get active(): number {
    return this.#active;
  }

  /** Runs `fn` when a slot is free; the slot is released when it settles. */
  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#active >= this.#max) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    else this.#active++;
    try {
      return await fn();
    } finally {
      const next = this.#waiters.shift();
      // The slot passes straight to the next waiter, so #active stays the same.
      if (next) next();
      else this.#active--;
    }
  }
}

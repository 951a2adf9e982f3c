/**
 * Asking a service politely: at most `concurrency` requests in flight and `perMinute` request starts
 * per minute, stopping at an abort — shared by probe and exam runs.
 * @module
 */

/** Limits of {@link paced}. */
export interface PaceLimits {
  concurrency: number;
  perMinute: number;
  signal?: AbortSignal;
}

/** `fn` over every item within the limits; results in item order (undefined for items not started before an abort). */
export async function paced<T, R>(items: readonly T[], limits: PaceLimits, fn: (item: T) => Promise<R>): Promise<Array<R | undefined>> {
  const spacingMs = 60_000 / limits.perMinute;
  const out = new Array<R | undefined>(items.length);
  let next = 0;
  let nextStartMs = performance.now();
  const worker = async () => {
    for (let i = next++; i < items.length && !limits.signal?.aborted; i = next++) {
      // Request starts are spaced so that no minute sees more than perMinute of them.
      const startAt = nextStartMs;
      nextStartMs = Math.max(nextStartMs, performance.now()) + spacingMs;
      const wait = startAt - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (limits.signal?.aborted) break;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limits.concurrency, items.length) }, worker));
  return out;
}

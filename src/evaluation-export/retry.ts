/**
 * Retries of one batch as the OTLP specification asks of exporters: only retryable outcomes (HTTP
 * 429/502/503/504, network errors, the retryable gRPC codes) are retried; the receiver's Retry-After
 * or RetryInfo is honoured; otherwise exponential backoff with jitter; the whole batch is given up
 * after `maxAttempts` or once `maxElapsedMs` would be passed.
 * @module
 */
import type { SendBatch, SendOutcome } from './types.ts';

/** Retry settings (`evaluationExport.*.retry`). */
export interface RetryPolicy {
  maxAttempts: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  maxElapsedMs: number;
}

/** What became of a batch after its attempts. */
export interface RetriedOutcome {
  outcome: SendOutcome;
  attempts: number;
  /** Why it was given up: the last outcome was retryable but attempts or time ran out. */
  exhausted: boolean;
}

const MULTIPLIER = 1.5;
const JITTER = 0.2;

/** Waits `ms`, or less when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    timer.unref();
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Sends with retries; an aborted `signal` (shutdown) stops waiting and gives the batch up. Never rejects. */
export async function sendWithRetry(send: SendBatch, policy: RetryPolicy, signal: AbortSignal, options: { now?: () => number; random?: () => number; onRetry?: () => void } = {}): Promise<RetriedOutcome> {
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const started = now();
  let backoff = policy.initialBackoffMs;
  for (let attempt = 1; ; attempt++) {
    const outcome = await send(signal);
    if (outcome.status !== 'retryable') return { outcome, attempts: attempt, exhausted: false };
    const wait = outcome.retryAfterMs ?? Math.min(policy.maxBackoffMs, backoff * (1 + JITTER * (2 * random() - 1)));
    backoff *= MULTIPLIER;
    if (attempt >= policy.maxAttempts || signal.aborted || now() - started + wait > policy.maxElapsedMs) return { outcome, attempts: attempt, exhausted: true };
    options.onRetry?.();
    await sleep(wait, signal);
    if (signal.aborted) return { outcome, attempts: attempt, exhausted: true };
  }
}

/** HTTP statuses the OTLP specification retries. */
export function isRetryableHttpStatus(status: number): boolean {
  return status === 429 || status === 502 || status === 503 || status === 504;
}

/** A `Retry-After` header (seconds or an HTTP date), milliseconds from now; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null | undefined, nowMs: number = Date.now()): number | undefined {
  if (header === null || header === undefined || header.trim() === '') return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isFinite(at) ? Math.max(0, at - nowMs) : undefined;
}

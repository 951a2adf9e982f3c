/**
 * When and how long to retry a judge request: only 408/409/425/429/5xx (plus timeouts and network
 * errors), exponential backoff with full jitter, and the server's `Retry-After` when it sends one.
 * @module
 */

/** HTTP statuses worth retrying (DESIGN §8). */
export function isRetriableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 425 || status === 429 || (status >= 500 && status <= 599);
}

/** Minimal header lookup (fetch `Headers` or a plain record). */
export type HeaderSource = { get(name: string): string | null } | Record<string, string | undefined> | undefined;

function header(headers: HeaderSource, name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as { get?: unknown }).get === 'function') return (headers as { get(n: string): string | null }).get(name) ?? undefined;
  return (headers as Record<string, string | undefined>)[name];
}

/**
 * Reads `retry-after-ms` (OpenAI/Azure) or `Retry-After` (seconds or an HTTP date) in milliseconds.
 * @returns undefined when absent or unparsable
 */
export function parseRetryAfterMs(headers: HeaderSource, nowMs: number = Date.now()): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const value = header(headers, 'retry-after');
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/**
 * Backoff before retry number `attempt` (1-based): full jitter over `min(maxMs, baseMs·2^(attempt−1))`,
 * never below half of it so retries do not hammer the endpoint back to back.
 */
export function backoffMs(attempt: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * One HTTP POST of an export request, classified as the OTLP specification retries: 2xx success
 * (with the response body, which may carry a partial success), 429/502/503/504 and network errors
 * retryable (with Retry-After), anything else a failure with the receiver's reason. The response body
 * read is bounded.
 * @module
 */
import { gzipSync } from 'node:zlib';
import { errorMessage } from '../errors.ts';
import { isRetryableHttpStatus, retryAfterMs } from './retry.ts';
import type { SendOutcome } from './types.ts';

/** Largest response body read, bytes (a receiver's error message or an export response). */
const MAX_RESPONSE_BYTES = 64 * 1024;

/** A request to send. */
export interface HttpPost {
  url: string;
  body: Uint8Array | string;
  contentType: string;
  headers?: Readonly<Record<string, string>>;
  compression?: 'none' | 'gzip';
  timeoutMs: number;
}

/** A delivered request's status and (bounded) body, or why it was not delivered. */
export type HttpOutcome = { status: 'success'; httpStatus: number; body: Uint8Array } | Exclude<SendOutcome, { status: 'success' }>;

async function readBounded(response: Response): Promise<Uint8Array> {
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_RESPONSE_BYTES) {
      await reader.cancel().catch(() => undefined);
      break;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** Sends one POST; never rejects. `signal` (shutdown) aborts it like a timeout. */
export async function postExport(request: HttpPost, signal: AbortSignal): Promise<HttpOutcome> {
  const headers: Record<string, string> = { 'Content-Type': request.contentType, 'User-Agent': 'ragwatch-evaluation-export', ...request.headers };
  let body: Uint8Array | string = request.body;
  if (request.compression === 'gzip') {
    body = gzipSync(typeof body === 'string' ? Buffer.from(body) : body);
    headers['Content-Encoding'] = 'gzip';
  }
  try {
    const response = await fetch(request.url, { method: 'POST', headers, body: typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength), signal: AbortSignal.any([signal, AbortSignal.timeout(request.timeoutMs)]), redirect: 'error' });
    const bytes = await readBounded(response);
    if (response.ok) return { status: 'success', httpStatus: response.status, body: bytes };
    const reason = `HTTP ${response.status}${bytes.byteLength > 0 ? `: ${Buffer.from(bytes).toString('utf8').slice(0, 300)}` : ''}`;
    if (isRetryableHttpStatus(response.status)) {
      const after = retryAfterMs(response.headers.get('retry-after'));
      return after === undefined ? { status: 'retryable', error: reason } : { status: 'retryable', error: reason, retryAfterMs: after };
    }
    return { status: 'failure', error: reason };
  } catch (err) {
    // Connection refused or reset, DNS, timeout: the receiver may come back, so the batch is retried.
    return { status: 'retryable', error: errorMessage(err) + (err instanceof Error && err.cause ? ` (${errorMessage(err.cause)})` : '') };
  }
}

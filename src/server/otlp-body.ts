/**
 * Reads an OTLP/HTTP request body safely: size-limited while streaming (413 as soon as the
 * limit is passed), abortable (request timeout), and decompressed with an output cap (gzip
 * bombs → 413). Failures are OtlpDecodeError (carrying the status) or IngestTimeoutError.
 * @module
 */
import { gunzip, inflate } from 'node:zlib';
import { promisify } from 'node:util';
import { OtlpDecodeError } from '../errors.ts';

const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);

/** The body did not arrive within the request timeout. */
export class IngestTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`request body not received within ${timeoutMs} ms`);
    this.name = 'IngestTimeoutError';
  }
}

/** The body did not fit the bytes-in-flight budget (answered 503). */
export class IngestBytesExhaustedError extends Error {
  constructor() {
    super('request bodies in flight exceed the budget');
    this.name = 'IngestBytesExhaustedError';
  }
}

/**
 * Reads the raw body, failing with 413 as soon as it exceeds `maxBytes`, with
 * IngestTimeoutError when `signal` aborts first, and with IngestBytesExhaustedError when
 * `reserve` refuses a chunk's bytes (the caller returns what it reserved).
 */
export async function readLimited(body: ReadableStream<Uint8Array> | null, maxBytes: number, signal?: AbortSignal, reserve?: (bytes: number) => boolean): Promise<Buffer> {
  if (!body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  let onAbort: (() => void) | undefined;
  // Races every read: a stalled client must not hold the request past the timeout.
  const aborted = new Promise<never>((_, reject) => {
    if (!signal) return;
    onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), aborted]);
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) throw new OtlpDecodeError(`request body exceeds ${maxBytes} bytes`, 413);
      if (reserve && !reserve(value.byteLength)) throw new IngestBytesExhaustedError();
      chunks.push(value);
    }
  } catch (err) {
    // Not awaited: on a stalled socket the cancel settles only when more data comes.
    reader.cancel().catch(() => undefined);
    throw err;
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
  return Buffer.concat(chunks, total);
}

/** Applies `Content-Encoding` (gzip, deflate or none) with the decompressed size capped at `maxBytes`. */
export async function decompress(raw: Buffer, encoding: string | undefined, maxBytes: number): Promise<Buffer> {
  const enc = (encoding ?? 'identity').trim().toLowerCase();
  if (enc === '' || enc === 'identity') return raw;
  if (enc !== 'gzip' && enc !== 'deflate') throw new OtlpDecodeError(`unsupported Content-Encoding "${enc}" (use gzip or none)`, 415);
  try {
    return await (enc === 'gzip' ? gunzipAsync : inflateAsync)(raw, { maxOutputLength: maxBytes });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) {
      throw new OtlpDecodeError(`decompressed body exceeds ${maxBytes} bytes`, 413);
    }
    throw new OtlpDecodeError(`body is not valid ${enc} data`, 400, { cause: err });
  }
}

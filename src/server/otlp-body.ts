/**
 * Reads an OTLP/HTTP request body safely: size-limited while streaming, decompressed with an
 * output cap (gzip bombs), strict UTF-8, JSON parsed. Every failure is an OtlpDecodeError
 * carrying the 4xx status to answer with.
 * @module
 */
import { gunzip, inflate } from 'node:zlib';
import { promisify } from 'node:util';
import { OtlpDecodeError } from '../errors.ts';

const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);

/** Reads the raw body, failing with 413 as soon as it exceeds `maxBytes`. */
export async function readLimited(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<Buffer> {
  if (!body) return Buffer.alloc(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new OtlpDecodeError(`request body exceeds ${maxBytes} bytes`, 413);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

/** Applies `Content-Encoding` with the decompressed size capped at `maxBytes`. */
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

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes strict UTF-8 JSON. */
export function parseJsonBody(buf: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(buf);
  } catch {
    throw new OtlpDecodeError('body is not valid UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new OtlpDecodeError(`body is not valid JSON: ${(err as Error).message}`);
  }
}

/** The media type of a Content-Type header, lowercased, without parameters. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * A raw HTTP client for ingest tests (node:http): exact headers (Content-Length, chunked),
 * streamed bodies, and a response even when the server answers before the upload ends.
 */
import { request } from 'node:http';

/** A received response. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** Body to send: bytes, or a lazily produced chunk stream (never held in memory at once). */
export type RawBody = Uint8Array | string | (() => AsyncIterable<Uint8Array>);

/** POSTs to `url`; resolves with the response, whatever happens to the rest of the upload. */
export function post(url: string, headers: Record<string, string | number>, body: RawBody): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = request(url, { method: 'POST', headers }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    // EPIPE/ECONNRESET after the server answered early (413, 401…) are expected, not failures.
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    if (typeof body !== 'function') {
      req.end(body);
      return;
    }
    // Send the headers now: the server starts the request (and its timeout) before any body byte.
    req.flushHeaders();
    void (async () => {
      for await (const chunk of body()) {
        if (answered || req.destroyed) break;
        if (!req.write(chunk)) await new Promise<void>((r) => { req.once('drain', r); req.once('close', r); });
      }
      if (!req.destroyed) req.end();
    })().catch(() => undefined);
  });
}

/** `count` chunks of `chunkBytes` (the same buffer reused), optionally pausing between chunks. */
export function chunks(count: number, chunkBytes: number, pauseMs = 0): () => AsyncIterable<Uint8Array> {
  const chunk = Buffer.alloc(chunkBytes, 0x20);
  return async function* produce() {
    for (let i = 0; i < count; i++) {
      if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
      yield chunk;
    }
  };
}

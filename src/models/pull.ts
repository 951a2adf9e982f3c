/**
 * Downloads a catalogued model into the cache: redirects followed, an interrupted download resumed
 * with an HTTP Range request (from the `.part` file, in this run or the next), the sha256 checked
 * before the file is registered, a file that fails the check removed.
 * @module
 */
import { createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { RagwatchError, errorMessage } from '../errors.ts';
import type { ModelCache } from './cache.ts';
import type { CachedModel, CatalogueModel } from './types.ts';

/** Options of {@link pullModel}; all optional. */
export interface PullOptions {
  /** Called as bytes arrive (`received` counts what the `.part` file holds). */
  onProgress?: (receivedBytes: number, totalBytes: number) => void;
  /** Called when a download is resumed or restarted, with why. */
  onNotice?: (message: string) => void;
  /** Requests before giving up (each resumes where the last stopped). Default 5. */
  attempts?: number;
  /** Longest silence of the connection, in milliseconds. Default 60000. */
  idleTimeoutMs?: number;
  /** The source URL (tests point it at a local server). Default the catalogue's. */
  url?: string;
}

/** Downloads `model` into `cache`, verifies and registers it. */
export async function pullModel(cache: ModelCache, model: CatalogueModel, options: PullOptions = {}): Promise<CachedModel> {
  const url = options.url ?? model.url;
  const attempts = options.attempts ?? 5;
  const idleMs = options.idleTimeoutMs ?? 60_000;
  await mkdir(cache.dir, { recursive: true });
  const part = join(cache.dir, `${model.file}.part`);
  let lastError: string;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    let offset = (await stat(part).catch(() => undefined))?.size ?? 0;
    if (offset > model.bytes) {
      await rm(part, { force: true });
      offset = 0;
    }
    if (offset === model.bytes) break;
    if (offset > 0) options.onNotice?.(`resuming at ${offset} of ${model.bytes} bytes`);
    const controller = new AbortController();
    let received = offset;
    let idle = setTimeout(() => controller.abort(), idleMs);
    try {
      const res = await fetch(url, { redirect: 'follow', signal: controller.signal, headers: offset > 0 ? { range: `bytes=${offset}-` } : {} });
      if (res.status === 416) break;
      if (res.status !== 200 && res.status !== 206) throw new RagwatchError('RAGWATCH_MODEL_DOWNLOAD_FAILED', `${url}: HTTP ${res.status}`);
      if (res.status === 206 && !res.headers.get('content-range')?.startsWith(`bytes ${offset}-`)) throw new Error(`the server resumed at the wrong place (${res.headers.get('content-range')})`);
      if (res.status === 200 && offset > 0) options.onNotice?.('the server ignored the Range request: starting again');
      received = res.status === 206 ? offset : 0;
      const out = createWriteStream(part, { flags: res.status === 206 ? 'a' : 'w' });
      const body = res.body ? Readable.fromWeb(res.body as never) : Readable.from([]);
      await pipeline(
        body,
        async function* (source) {
          for await (const chunk of source) {
            clearTimeout(idle);
            idle = setTimeout(() => controller.abort(), idleMs);
            received += (chunk as Buffer).length;
            options.onProgress?.(received, model.bytes);
            yield chunk as Buffer;
          }
        },
        out,
      );
      if (received >= model.bytes) break;
      lastError = `the connection ended at ${received} of ${model.bytes} bytes`;
      options.onNotice?.(lastError);
    } catch (err) {
      if (err instanceof RagwatchError) throw err;
      lastError = `the connection ended at ${received} of ${model.bytes} bytes (${controller.signal.aborted ? `no data for ${idleMs} ms` : errorMessage(err)})`;
      options.onNotice?.(`download interrupted (${lastError})`);
    } finally {
      clearTimeout(idle);
    }
    if (attempt === attempts) {
      throw new RagwatchError('RAGWATCH_MODEL_DOWNLOAD_FAILED', `${url}: ${lastError} after ${attempts} attempts; run the command again to resume from ${part}`);
    }
  }
  try {
    return await cache.add(part, { name: model.name, sha256: model.sha256, move: true, source: url });
  } catch (err) {
    await rm(part, { force: true });
    throw new RagwatchError('RAGWATCH_MODEL_INVALID', `${errorMessage(err)}: the download was refused and removed`, { cause: err });
  }
}

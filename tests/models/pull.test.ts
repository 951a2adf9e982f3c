/**
 * `pullModel` against a local HTTP server that behaves like a model hub: a redirect to the file
 * (as the hub redirects to its CDN), Range requests answered with 206, a connection cut mid-body
 * (resumed where it stopped), a server that ignores Range (started again), a body whose sha256 is
 * wrong (refused and removed), an HTTP error (named).
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelCache } from '../../src/models/cache.ts';
import { pullModel } from '../../src/models/pull.ts';
import type { CatalogueModel } from '../../src/models/types.ts';

const dir = mkdtempSync(join(tmpdir(), 'ragwatch-pull-'));
const body = Buffer.concat([Buffer.from('GGUF'), randomBytes(3 * 1024 * 1024)]);
const sha256 = createHash('sha256').update(body).digest('hex');

/** How the file route behaves this time. */
let behaviour: { cutAt?: number; ignoreRange?: boolean; corrupt?: boolean; status?: number } = {};
const requests: Array<{ path: string; range?: string }> = [];
let server: Server;
let base = '';

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests.push({ path: req.url ?? '', ...(req.headers.range ? { range: req.headers.range } : {}) });
    if (req.url === '/org/model/resolve/main/model.gguf') {
      res.writeHead(302, { location: '/cdn/model.gguf' }).end();
      return;
    }
    if (behaviour.status) return void res.writeHead(behaviour.status).end('nope');
    const data = behaviour.corrupt ? Buffer.concat([body.subarray(0, -1), Buffer.from([body.at(-1)! ^ 1])]) : body;
    const m = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = m && !behaviour.ignoreRange ? Number(m[1]) : 0;
    const headers: Record<string, string | number> = { 'content-type': 'application/octet-stream', 'content-length': data.length - start, 'accept-ranges': 'bytes' };
    if (start > 0) headers['content-range'] = `bytes ${start}-${data.length - 1}/${data.length}`;
    res.writeHead(start > 0 ? 206 : 200, headers);
    const cut = behaviour.cutAt;
    if (cut !== undefined && cut > start) {
      behaviour = { ...behaviour, cutAt: undefined };
      res.write(data.subarray(start, cut), () => res.destroy());
      return;
    }
    res.end(data.subarray(start));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

const model = (): CatalogueModel => ({ name: 'hub-model', description: 'test', url: `${base}/org/model/resolve/main/model.gguf`, file: 'model.gguf', bytes: body.length, sha256, licence: 'Apache-2.0', format: 'chatml' });

describe('pullModel', () => {
  it('follows the redirect, resumes a cut connection with a Range request, verifies and registers', async () => {
    const cache = new ModelCache(join(dir, 'a'));
    behaviour = { cutAt: 1_000_000 };
    requests.length = 0;
    const notices: string[] = [];
    let last = 0;
    const m = await pullModel(cache, model(), { onNotice: (n) => notices.push(n), onProgress: (r) => (last = r) });
    expect(m).toMatchObject({ name: 'hub-model', sha256, bytes: body.length, origin: 'pull' });
    expect(readFileSync(m.path).equals(body)).toBe(true);
    expect(last).toBe(body.length);
    // The second request asks for the rest of what reached the .part file (at most the 1 MB sent before the cut).
    const ranges = requests.filter((r) => r.path === '/cdn/model.gguf').map((r) => r.range);
    expect(ranges).toHaveLength(2);
    expect(ranges[0]).toBeUndefined();
    const resumedAt = Number(/^bytes=(\d+)-$/.exec(ranges[1] ?? '')?.[1]);
    expect(resumedAt).toBeGreaterThan(0);
    expect(resumedAt).toBeLessThanOrEqual(1_000_000);
    expect(notices.join('\n')).toContain(`resuming at ${resumedAt} of ${body.length} bytes`);
    expect(readdirSync(cache.dir).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('starts again when the server ignores the Range request', async () => {
    const cache = new ModelCache(join(dir, 'b'));
    behaviour = { cutAt: 500_000, ignoreRange: true };
    const notices: string[] = [];
    const m = await pullModel(cache, model(), { onNotice: (n) => notices.push(n) });
    expect(readFileSync(m.path).equals(body)).toBe(true);
    expect(notices.join('\n')).toContain('ignored the Range request');
  });

  it('refuses and removes a download whose sha256 is wrong', async () => {
    const cache = new ModelCache(join(dir, 'c'));
    behaviour = { corrupt: true };
    await expect(pullModel(cache, model())).rejects.toMatchObject({ code: 'RAGWATCH_MODEL_INVALID', message: expect.stringMatching(/sha256 [0-9a-f]{64}, expected .*refused and removed/) });
    expect(readdirSync(cache.dir)).toEqual([]);
    expect(await cache.list()).toEqual([]);
  });

  it('names the HTTP status, and gives up after its attempts keeping the part for the next run', async () => {
    const cache = new ModelCache(join(dir, 'd'));
    behaviour = { status: 404 };
    await expect(pullModel(cache, model())).rejects.toMatchObject({ code: 'RAGWATCH_MODEL_DOWNLOAD_FAILED', message: expect.stringContaining('HTTP 404') });
    behaviour = { cutAt: 200_000 };
    await expect(pullModel(cache, model(), { attempts: 1 })).rejects.toThrow(/the connection ended at \d+ of \d+ bytes .* after 1 attempts; run the command again to resume/);
    expect(existsSync(join(cache.dir, 'model.gguf.part'))).toBe(true);
    behaviour = {};
    const m = await pullModel(cache, model());
    expect(readFileSync(m.path).equals(body)).toBe(true);
  });
});

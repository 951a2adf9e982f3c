import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpPoster } from '../../src/transport/http-poster.ts';

/** A receiver answering the scripted statuses in turn (then 200), recording the bodies it got. */
async function receiver(statuses: Array<[number, Record<string, string>?]>): Promise<{ url: string; bodies: string[]; server: Server }> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      bodies.push(body);
      const [status, headers] = statuses.shift() ?? [200];
      res.writeHead(status, headers).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`, bodies, server };
}

let server: Server | undefined;
afterEach(() => server?.close());

describe('HttpPoster', () => {
  it('waits out a 503 with Retry-After and keeps the batch, drops a 4xx by status, bounds its queue', async () => {
    const r = await receiver([[503, { 'retry-after': '1' }], [400]]);
    server = r.server;
    const delivered: number[][] = [];
    const dropped: Array<[number, string]> = [];
    const warnings: string[] = [];
    const poster = new HttpPoster<number>({ url: r.url, encode: (b) => JSON.stringify(b), onDelivered: (b) => delivered.push([...b]), onDropped: (n, reason) => dropped.push([n, reason]), refused: (s) => `refused ${s}`, warn: (m) => warnings.push(m), batchMaxItems: 2, maxQueueItems: 4, lingerMs: 20 });
    for (let i = 1; i <= 5; i++) poster.enqueue(i);
    expect(dropped).toEqual([[1, 'queue_full']]);
    const t0 = Date.now();
    await poster.forceFlush(5_000);
    // 503 (kept; ≥ 1 s later the same batch again), then 400 (that batch dropped), then the next batch delivered.
    expect(r.bodies).toEqual(['[1,2]', '[1,2]', '[3,4]']);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(950);
    expect(delivered).toEqual([[3, 4]]);
    expect(dropped).toEqual([[1, 'queue_full'], [2, 'rejected_400']]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/answered 503; retrying/);
    await poster.shutdown(100);
    expect(poster.enqueue(6)).toBe(false);
    expect(dropped.at(-1)).toEqual([1, 'shutdown']);
  });
});

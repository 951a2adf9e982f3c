/**
 * Ingest admission control: bearer token, concurrency limit (503), request and item rate
 * limits (429) with Retry-After, and the body timeout (408). Real ports where timing over a
 * socket matters, `app.request()` where a port adds nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { decodeStatus } from '../../src/capture/otlp/protobuf.ts';
import type { CapturedSpan } from '../../src/capture/types.ts';
import { createIngestApp, type IngestAppOptions, type IngestOutcome } from '../../src/server/ingest-app.ts';
import { listen, type RunningServer } from '../../src/roles/serve.ts';
import { TokenBucket } from '../../src/server/token-bucket.ts';
import { post } from './ingest-client.ts';

const TRACE_ID = '5b8efff798038103d269b633813fc60c';

/** An OTLP/JSON trace with `n` spans. */
function traceBody(n: number): string {
  const spans = Array.from({ length: n }, (_, i) => ({ traceId: TRACE_ID, spanId: (i + 1).toString(16).padStart(16, '0'), name: `s${i}` }));
  return JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] });
}

function build(options: Partial<IngestAppOptions> = {}) {
  const spans: CapturedSpan[] = [];
  const outcomes: IngestOutcome[] = [];
  const app = createIngestApp({ onSpans: (s) => spans.push(...s), onLogs: () => undefined, onOutcome: (o) => outcomes.push(o), ...options });
  const send = (body: string, headers: Record<string, string> = {}) =>
    app.request('/v1/traces', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  return { app, spans, outcomes, send };
}

describe('bearer token', () => {
  const token = 'k7Qm2xR9vL4pZ8nW3cF6';
  const { send, spans, outcomes, app } = build({ bearerToken: token });

  it('refuses a missing, wrong or differently sized token with 401 and accepts the right one', async () => {
    for (const auth of [undefined, `Bearer ${token.slice(0, -1)}X`, `Bearer ${token}extra`, token, `Basic ${token}`]) {
      const res = await send(traceBody(1), auth === undefined ? {} : { authorization: auth });
      expect(res.status, String(auth)).toBe(401);
      expect(((await res.json()) as { code: number; message: string }).message).toMatch(/bearer token/);
    }
    expect(spans).toHaveLength(0);
    const ok = await send(traceBody(1), { authorization: `Bearer ${token}` });
    expect(ok.status).toBe(200);
    expect(spans).toHaveLength(1);
    expect(outcomes.filter((o) => o.reason === 'unauthorized')).toHaveLength(5);
  });

  it('answers a protobuf client in protobuf (google.rpc.Status UNAUTHENTICATED)', async () => {
    const res = await app.request('/v1/logs', { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body: new Uint8Array() });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/x-protobuf');
    expect(decodeStatus(new Uint8Array(await res.arrayBuffer()))).toEqual({ code: 16, message: 'missing or invalid bearer token' });
  });
});

describe('rate limits', () => {
  it('refuses requests over the request rate with 429 and Retry-After', async () => {
    const { send } = build({ rateLimitRequestsPerSecond: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await send(traceBody(1))).status);
    expect(statuses).toEqual([200, 200, 429]);
    const res = await send(traceBody(1));
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await res.json()) as { code: number }).code).toBe(8);
  });

  it('refuses span batches over the item rate, admitting one oversized batch into debt', async () => {
    const { send, spans, outcomes } = build({ rateLimitItemsPerSecond: 3 });
    expect((await send(traceBody(3))).status).toBe(200);
    const refused = await send(traceBody(1));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(spans).toHaveLength(3);
    expect(outcomes.at(-1)).toMatchObject({ status: 429, reason: 'rate_limited', accepted: 0 });

    const big = build({ rateLimitItemsPerSecond: 3 });
    expect((await big.send(traceBody(9))).status).toBe(200);
    const after = await big.send(traceBody(1));
    expect(after.status).toBe(429);
    // 6 tokens of debt plus 1 needed, at 3 per second.
    expect(after.headers.get('retry-after')).toBe('3');
  });

  it('token bucket refills at its rate', () => {
    let now = 0;
    const bucket = new TokenBucket({ ratePerSecond: 10, burstSeconds: 0.5, nowMs: () => now });
    expect(bucket.take(5)).toBe(0);
    expect(bucket.take(1)).toBe(1);
    now += 100;
    expect(bucket.take(1)).toBe(0);
    expect(bucket.take(1)).toBe(1);
  });
});

describe('over a real socket', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function start(options: Partial<IngestAppOptions>) {
    const built = build(options);
    server = await listen(built.app, '127.0.0.1', 0);
    return { ...built, url: `http://127.0.0.1:${server.port}` };
  }

  /** The body split in `parts`, each sent `pauseMs` after the previous one. */
  function slow(body: string, parts: number, pauseMs: number) {
    const bytes = Buffer.from(body);
    const size = Math.ceil(bytes.length / parts);
    return async function* produce() {
      for (let i = 0; i < parts; i++) {
        await new Promise((r) => setTimeout(r, pauseMs));
        yield bytes.subarray(i * size, (i + 1) * size);
      }
    };
  }

  it('answers 503 with Retry-After while the concurrency limit is reached, then accepts again', async () => {
    const { url, spans } = await start({ maxConcurrentRequests: 1 });
    const first = post(`${url}/v1/traces`, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, slow(traceBody(2), 4, 100));
    await new Promise((r) => setTimeout(r, 150));
    const second = await post(`${url}/v1/traces`, { 'content-type': 'application/json' }, traceBody(1));
    expect(second.status).toBe(503);
    expect(second.headers['retry-after']).toBe('1');
    expect(JSON.parse(second.body.toString())).toMatchObject({ code: 14, message: expect.stringMatching(/saturated/) });
    expect((await first).status).toBe(200);
    expect((await post(`${url}/v1/traces`, { 'content-type': 'application/json' }, traceBody(1))).status).toBe(200);
    expect(spans).toHaveLength(3);
  });

  it('answers 408 when the body does not arrive within requestTimeoutMs, and frees the slot', async () => {
    const { url, outcomes } = await start({ requestTimeoutMs: 200, maxConcurrentRequests: 1 });
    const started = performance.now();
    const res = await post(`${url}/v1/traces`, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, slow(traceBody(2), 3, 1000));
    expect(res.status).toBe(408);
    expect(performance.now() - started).toBeLessThan(900);
    expect(JSON.parse(res.body.toString()).message).toMatch(/within 200 ms/);
    expect(outcomes.at(-1)).toMatchObject({ status: 408, reason: 'timeout' });
    expect((await post(`${url}/v1/traces`, { 'content-type': 'application/json' }, traceBody(1))).status).toBe(200);
  });
});

describe('load shedding before the body is read', () => {
  it('refuses new requests with 503 + Retry-After while the event loop runs later than server.maxEventLoopDelayMs, and admits them again when it catches up', async () => {
    let delayMs = 80;
    const { send, spans, outcomes } = build({ maxEventLoopDelayMs: 40, minActiveToShed: 0, loopDelayMs: () => delayMs });
    const busy = await send(traceBody(3));
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(((await busy.json()) as { message: string }).message).toMatch(/event loop ran 80 ms late, server.maxEventLoopDelayMs 40/);
    expect(spans).toHaveLength(0);
    delayMs = 5;
    expect((await send(traceBody(3))).status).toBe(200);
    expect(spans).toHaveLength(3);
    expect(outcomes.map((o) => [o.status, o.reason])).toEqual([[503, 'saturated'], [200, 'ok']]);
  });

  it('maxEventLoopDelayMs 0 never sheds, nor does a late loop with no requests of its own in progress; a saturated pipeline (capture buffer nearly full) refuses whole requests', async () => {
    expect((await build({ maxEventLoopDelayMs: 0, minActiveToShed: 0, loopDelayMs: () => 10_000 }).send(traceBody(1))).status).toBe(200);
    // A lone request on a starved host (default: 2 others in progress needed) is admitted.
    expect((await build({ maxEventLoopDelayMs: 40, loopDelayMs: () => 10_000 }).send(traceBody(1))).status).toBe(200);
    let full: string | undefined = 'capture buffer 93 % of capture.maxBufferedSpans';
    const { send, spans } = build({ saturation: () => full });
    const refused = await send(traceBody(4));
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as { message: string }).message).toContain('capture buffer 93 %');
    expect(spans).toHaveLength(0);
    full = undefined;
    expect((await send(traceBody(4))).status).toBe(200);
    expect(spans).toHaveLength(4);
  });
});

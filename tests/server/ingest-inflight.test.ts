/**
 * Ingest bounds the bytes of request bodies held at once (`maxInflightBytes`): a request whose
 * body does not fit is answered 503 with Retry-After, and the bytes come back when a request ends.
 */
import { describe, expect, it } from 'vitest';
import type { CapturedSpan } from '../../src/capture/types.ts';
import { createIngestApp, type IngestOutcome } from '../../src/server/ingest-app.ts';
import { IngestGuard } from '../../src/server/ingest-guard.ts';

const TRACE_ID = '5b8efff798038103d269b633813fc60c';
const traceBody = (n: number) =>
  JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: Array.from({ length: n }, (_, i) => ({ traceId: TRACE_ID, spanId: (i + 1).toString(16).padStart(16, '0'), name: `s${i}` })) }] }] });

describe('IngestGuard byte budget', () => {
  it('reserves while the bytes fit and gets them back on release', () => {
    const guard = new IngestGuard({ maxInflightBytes: 100 });
    expect(guard.reserveBytes(60)).toBe(true);
    expect(guard.reserveBytes(50)).toBe(false);
    expect(guard.inflightBytes).toBe(60);
    guard.releaseBytes(60);
    expect(guard.reserveBytes(100)).toBe(true);
  });
});

describe('bytes in flight', () => {
  it('answers 503 while other bodies hold the budget, and accepts again once they are done', async () => {
    const spans: CapturedSpan[] = [];
    const outcomes: IngestOutcome[] = [];
    const big = new TextEncoder().encode(traceBody(8));
    const small = traceBody(1);
    // The budget's floor is two largest bodies: two slow clients holding 95 % of one each leave
    // less room than a small body needs.
    const app = createIngestApp({ onSpans: (s) => spans.push(...s), onLogs: () => undefined, onOutcome: (o) => outcomes.push(o), maxBodyBytes: big.byteLength, maxInflightBytes: 1 });
    const send = (init: RequestInit) => app.request('/v1/traces', { method: 'POST', headers: { 'content-type': 'application/json' }, ...init });
    const finishers: Array<() => void> = [];
    const slow = [0, 1].map(() => {
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          const cut = Math.floor(big.byteLength * 0.95);
          controller.enqueue(big.slice(0, cut));
          finishers.push(() => {
            controller.enqueue(big.slice(cut));
            controller.close();
          });
        },
      });
      return send({ body: stream, duplex: 'half' } as RequestInit);
    });
    await new Promise((r) => setTimeout(r, 20));
    const refused = await send({ body: small });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    for (const f of finishers) f();
    expect((await Promise.all(slow)).map((r) => r.status)).toEqual([200, 200]);
    const accepted = await send({ body: small });
    expect(accepted.status).toBe(200);
    expect(spans).toHaveLength(8 + 8 + 1);
    expect(outcomes.map((o) => o.reason)).toEqual(['saturated', 'ok', 'ok', 'ok']);
  });
});

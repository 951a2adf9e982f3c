/**
 * DESIGN §11 promise 7 (SIGTERM), on the real `ragwatch start` child process: traffic keeps
 * arriving while SIGTERM lands; the process must stop ingest, finish or count in-flight work and
 * exit 0 within the grace period, and its final accounting must balance with what ingest accepted.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { reportFigure } from './figures.ts';
import { startRagwatch, waitFor200, type RagwatchProcess } from './ragwatch-process.ts';
import { batchBody, post, type SendStats } from './traffic.ts';

const GRACE_MS = 3_000;
let rw: RagwatchProcess | undefined;
afterAll(async () => rw?.cleanup());

describe('SIGTERM with traffic in flight', () => {
  it('exits 0 within the grace period and nothing is lost unexplained', async () => {
    rw = await startRagwatch({
      server: { otlpPort: 0, otlpGrpcPort: 0, httpPort: 0, shutdownGraceMs: GRACE_MS },
      capture: { traceIdleMs: 300 },
      log: { level: 'info' },
    });
    await waitFor200(`${rw.apiUrl}/readyz`, 60_000);
    const stats: SendStats = { sent: 0, byStatus: {}, acceptedTraces: 0 };
    const TRACES = 10;
    const body = () => batchBody(TRACES);
    let sending = true;
    const inFlight = new Set<Promise<number>>();
    // 4 senders back to back, still sending when SIGTERM arrives and after.
    const senders = Array.from({ length: 4 }, async () => {
      while (sending) {
        const p = post(rw!.otlpUrl, body(), TRACES, stats);
        inFlight.add(p);
        await p;
        inFlight.delete(p);
      }
    });
    // Wait until a request is on the wire, so SIGTERM lands mid-request.
    await new Promise((r) => setTimeout(r, 3_000));
    while (inFlight.size === 0) await new Promise((r) => setTimeout(r, 1));
    const requestsInFlightAtSignal = inFlight.size;
    const signalAt = performance.now();
    rw.child.kill('SIGTERM');
    const exit = await rw.exited;
    sending = false;
    await Promise.all(senders);
    const exitMs = Math.round(exit.atMs - signalAt);

    const stopped = rw.logs.find((l) => l.msg === 'stopped') as { accounting?: Record<string, number> } | undefined;
    const a = stopped?.accounting;
    reportFigure({ fault: 'shutdown', figure: 'exit_code', value: exit.code ?? -1, signal: exit.signal });
    reportFigure({ fault: 'shutdown', figure: 'exit_ms', value: exitMs, graceMs: GRACE_MS, requestsInFlightAtSignal });
    reportFigure({
      fault: 'shutdown',
      figure: 'lost_unexplained',
      value: a ? Math.abs(stats.acceptedTraces - a.captured!) + Math.abs(a.residualCaptured!) + Math.abs(a.residualSampled!) : -1,
      acceptedTraces: stats.acceptedTraces,
      accounting: a,
      responses: stats.byStatus,
    });

    expect(exit.code).toBe(0);
    expect(exitMs).toBeLessThanOrEqual(GRACE_MS + 500);
    expect(a).toBeDefined();
    expect(stats.acceptedTraces).toBeGreaterThan(0);
    // Every trace ingest accepted became a triplet; every triplet is sampled or not; every sampled one is scored, failed or counted dropped.
    expect(a!.captured).toBe(stats.acceptedTraces);
    expect(a!.residualCaptured).toBe(0);
    expect(a!.residualSampled).toBe(0);
    expect(a!.inFlight).toBe(0);
  });
});

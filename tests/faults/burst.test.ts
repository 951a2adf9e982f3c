/**
 * Fault case 4 (DESIGN §11 promise 2): a 10× burst over the configured ingest capacity for 60 s
 * against a `ragwatch start` child process. RSS must stay bounded and flat, drops must be counted
 * by reason, `/healthz` must stay responsive, and the accounting identity must hold afterwards.
 */
import { Agent, get } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { reportFigure } from './figures.ts';
import { parseMetrics, startRagwatch, sumMetric, waitFor200, type RagwatchProcess } from './ragwatch-process.ts';
import { batchBody, percentile, post, type SendStats } from './traffic.ts';

const BURST_S = Number(process.env.RAGWATCH_FAULT_BURST_S ?? 60);
/** Configured ingest capacity: spans per second (each trace has 3 spans). */
const CAPACITY_SPANS_PER_S = 150;
const TRACES_PER_REQUEST = 20;
const TICK_MS = 40;
/** 20 traces × 3 spans every 40 ms = 1,500 spans/s = 10× capacity. */
const OFFERED_SPANS_PER_S = (TRACES_PER_REQUEST * 3 * 1000) / TICK_MS;
const MAX_OUTSTANDING = 32;
const MiB = 1024 * 1024;

let rw: RagwatchProcess | undefined;
afterAll(async () => rw?.cleanup());

describe('fault 4: 10× ingest burst', () => {
  it(`${BURST_S} s at 10× capacity: bounded RSS, counted drops, responsive /healthz, identity holds`, { timeout: (BURST_S + 120) * 1000 }, async () => {
    expect(OFFERED_SPANS_PER_S).toBe(10 * CAPACITY_SPANS_PER_S);
    rw = await startRagwatch({
      server: { otlpPort: 0, otlpGrpcPort: 0, httpPort: 0, rateLimitItemsPerSecond: CAPACITY_SPANS_PER_S },
      capture: { traceIdleMs: 500 },
      log: { level: 'info' },
    });
    await waitFor200(`${rw.apiUrl}/readyz`, 60_000);
    const baselineRss = rw.rssBytes() ?? 0;

    const rss: Array<{ t: number; v: number }> = [];
    const health: number[] = [];
    let healthFailures = 0;
    const stats: SendStats = { sent: 0, byStatus: {}, acceptedTraces: 0 };
    let skipped = 0;
    let outstanding = 0;
    const t0 = performance.now();
    const until = t0 + BURST_S * 1000;

    const rssTimer = setInterval(() => rss.push({ t: performance.now() - t0, v: rw!.rssBytes() ?? 0 }), 250);
    // A separate connection pool, so probes never queue behind load requests.
    const probeAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    const probe = () =>
      new Promise<number>((resolve) => {
        const req = get(`${rw!.apiUrl}/healthz`, { agent: probeAgent, timeout: 5_000 }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('timeout', () => req.destroy());
        req.on('error', () => resolve(0));
      });
    const prober = (async () => {
      while (performance.now() < until) {
        const s = performance.now();
        if ((await probe()) !== 200) healthFailures++;
        health.push(performance.now() - s);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const pending = new Set<Promise<unknown>>();
    while (performance.now() < until) {
      const tickStart = performance.now();
      if (outstanding >= MAX_OUTSTANDING) skipped++;
      else {
        outstanding++;
        const p = post(rw.otlpUrl, batchBody(TRACES_PER_REQUEST), TRACES_PER_REQUEST, stats).finally(() => {
          outstanding--;
          pending.delete(p);
        });
        pending.add(p);
      }
      await new Promise((r) => setTimeout(r, Math.max(0, TICK_MS - (performance.now() - tickStart))));
    }
    await Promise.all(pending);
    await prober;
    clearInterval(rssTimer);
    probeAgent.destroy();

    // Let assembly and scoring drain, then read the books.
    await new Promise((r) => setTimeout(r, 3_000));
    const metrics = parseMetrics(await (await fetch(`${rw.apiUrl}/metrics`)).text());
    const captured = sumMetric(metrics, 'ragwatch_triplets_captured_total');
    const sampled = sumMetric(metrics, 'ragwatch_triplets_sampled_total');
    const notSampled = sumMetric(metrics, 'ragwatch_triplets_not_sampled_total');
    const scored = sumMetric(metrics, 'ragwatch_triplets_scored_total');
    const failed = sumMetric(metrics, 'ragwatch_triplets_failed_total');
    const inFlight = sumMetric(metrics, 'ragwatch_triplets_in_flight');
    const droppedAfter = sumMetric(metrics, 'ragwatch_dropped_total', (k) => !/stage="(ingest|processor|capture|sampling)"/.test(k) && !k.includes('reason="duplicate"'));
    const dropsByReason: Record<string, number> = {};
    for (const [k, v] of metrics) {
      const m = /^ragwatch_dropped_total\{(.*)\}$/.exec(k);
      if (m) dropsByReason[m[1]!.replace(/"/g, '')] = v;
    }

    const rejectedByReason: Record<string, number> = {};
    for (const [k, v] of metrics) {
      const m = /^ragwatch_ingest_requests_total\{(.*)\}$/.exec(k);
      if (m && !/reason="ok"/.test(k)) rejectedByReason[m[1]!.replace(/"/g, '')] = v;
    }
    const rejected429 = sumMetric(metrics, 'ragwatch_ingest_requests_total', (k) => k.includes('status="429"'));
    const peak = Math.max(baselineRss, ...rss.map((s) => s.v));
    const third = (BURST_S * 1000) / 3;
    const firstThirdMax = Math.max(0, ...rss.filter((s) => s.t < third).map((s) => s.v));
    const lastThirdMax = Math.max(0, ...rss.filter((s) => s.t >= 2 * third).map((s) => s.v));
    const p99 = percentile(health, 99);
    reportFigure({ fault: 'burst', figure: 'peak_rss_mib', value: Math.round(peak / MiB), baselineMiB: Math.round(baselineRss / MiB), durationS: BURST_S, offeredSpansPerS: OFFERED_SPANS_PER_S, capacitySpansPerS: CAPACITY_SPANS_PER_S });
    reportFigure({ fault: 'burst', figure: 'rss_growth_last_vs_first_third_mib', value: Math.round((lastThirdMax - firstThirdMax) / MiB) });
    reportFigure({ fault: 'burst', figure: 'healthz_p99_ms', value: Math.round(p99 * 10) / 10, p50: Math.round(percentile(health, 50) * 10) / 10, max: Math.round(Math.max(...health)), probes: health.length, failures: healthFailures });
    reportFigure({ fault: 'burst', figure: 'drops_by_reason', value: Object.values(dropsByReason).reduce((a, b) => a + b, 0), dropsByReason, rejectedRequestsByReason: rejectedByReason, responses: stats.byStatus, clientSkipped: skipped });
    reportFigure({ fault: 'burst', figure: 'accounting_residual', value: captured - sampled - notSampled + (sampled - scored - failed - droppedAfter - inFlight), captured, sampled, scored, failed, droppedAfter, inFlight, acceptedTraces: stats.acceptedTraces });

    expect(rw.child.exitCode).toBeNull();
    expect(stats.byStatus['429'] ?? 0).toBeGreaterThan(0);
    // Every request ingest refused is counted with its reason (the sender keeps and retries the data: OTLP 429).
    expect(rejected429).toBe(stats.byStatus['429']);
    expect(peak).toBeLessThan(baselineRss + 256 * MiB);
    expect(lastThirdMax - firstThirdMax).toBeLessThan(64 * MiB);
    expect(healthFailures).toBe(0);
    expect(p99).toBeLessThan(500);
    expect(captured).toBe(stats.acceptedTraces);
    expect(captured - sampled - notSampled).toBe(0);
    expect(sampled - scored - failed - droppedAfter - inFlight).toBe(0);
  });
});

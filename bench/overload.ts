/**
 * rss_growth_mb_overload: RSS growth of a real `ragwatch start` process while it is offered ~10×
 * more traffic than it can judge, held for 60 s (--quick: 10 s). Bounded queues must drop (counted)
 * instead of growing. Also reports /healthz p99 latency under that load and the drops by reason.
 * rss_growth_mb_overload_grpc: the same over OTLP/gRPC (protobuf bodies of real SDK spans).
 * Each transport runs RUNS fresh processes; the figures are the run with the median RSS growth (the
 * peak of one run moves with when the GC catches up: 38–55 MB over gRPC for the same work, and a
 * median of three read 50.6 MB in CI against medians of 44–47 MB in five other runs that day).
 */
import * as grpc from '@grpc/grpc-js';
import { readFileSync } from 'node:fs';
import { CLOCK_TOWER, openInferenceTrace } from '../scripts/lib/otlp-trace.ts';
import { freePort, metricValue, spawnRagwatch, waitFor } from '../tests/helpers/process.ts';
import { emit, percentile, QUICK, type Figure } from './lib.ts';
import { otlpBodyMaker } from './otlp-bodies.ts';

const HOLD_MS = QUICK ? 10_000 : 60_000;
const CONCURRENCY = 8;
const TRACES_PER_BODY = 20;
const RUNS = 5;

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

/** One overload run over `transport`: a fresh `ragwatch start`; its RSS growth and its other figures. */
async function overload(transport: 'http' | 'grpc', suffix: string): Promise<{ growthMb: number; figures: Figure[] }> {
const figures: Figure[] = [];
const [otlpPort, grpcPort, httpPort] = [await freePort(), await freePort(), await freePort()];
const otlp = `http://127.0.0.1:${otlpPort}/v1/traces`;
const http = `http://127.0.0.1:${httpPort}`;
const proc = spawnRagwatch(['start'], {
  RAGWATCH_OTLP_PORT: String(otlpPort),
  RAGWATCH_OTLP_GRPC_PORT: String(grpcPort),
  RAGWATCH_HTTP_PORT: String(httpPort),
  RAGWATCH_LOG_LEVEL: 'warn',
});
let client: (grpc.Client & { Export(req: Buffer, cb: (err: grpc.ServiceError | null) => void): void }) | undefined;
try {
  await waitFor(async () => (await fetch(`${http}/readyz`)).status === 200, 30_000);
  let next = 0;
  let send: () => Promise<number>;
  if (transport === 'http') {
    // Distinct trace ids per request, so traces do not merge into a few huge ones.
    const bodies = Array.from({ length: 500 }, () => {
      const merged = { resourceSpans: [] as unknown[] };
      for (let t = 0; t < TRACES_PER_BODY; t++) merged.resourceSpans.push(...(openInferenceTrace(CLOCK_TOWER).body.resourceSpans as unknown[]));
      return JSON.stringify(merged);
    });
    send = () => {
      // New trace ids on every request (the first 8 hex digits carry a counter): overload is many
      // distinct requests, not the same spans re-sent.
      const prefix = (0x10000000 + next).toString(16).slice(-8);
      const body = bodies[next++ % bodies.length]!.replace(/"traceId":"[0-9a-f]{8}/g, `"traceId":"${prefix}`);
      return fetch(otlp, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.arrayBuffer().then(() => r.status));
    };
  } else {
    // Protobuf bodies of real SDK spans, each with trace ids of its own.
    const make = otlpBodyMaker();
    const bodies = Array.from({ length: QUICK ? 1500 : 4000 }, () => make().protobuf);
    const Client = grpc.makeGenericClientConstructor({ Export: { path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export', requestStream: false, responseStream: false, requestSerialize: (b: Buffer) => b, requestDeserialize: (b: Buffer) => b, responseSerialize: (b: Buffer) => b, responseDeserialize: (b: Buffer) => b } }, 'Export');
    const c = (client = new Client(`127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure()) as unknown as NonNullable<typeof client>);
    // gRPC statuses counted as the HTTP status they mirror: 200 ok, 503 shed.
    send = () => new Promise<number>((resolve) => c.Export(bodies[next++ % bodies.length]!, (err) => resolve(err ? (err.code === grpc.status.UNAVAILABLE ? 503 : 500) : 200)));
  }
  // Warm up, then take the baseline RSS.
  for (let i = 0; i < 20; i++) await send();
  await new Promise((r) => setTimeout(r, 2000));
  const baseRss = rssMb(proc.child.pid!);

  let peak = baseRss;
  let sent = 0;
  const statuses = new Map<number, number>();
  const healthMs: number[] = [];
  let healthFailures = 0;
  const deadline = Date.now() + HOLD_MS;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(proc.child.pid!))), 250);
  const prober = (async () => {
    while (Date.now() < deadline) {
      const t0 = performance.now();
      const ok = await fetch(`${http}/healthz`).then((r) => r.arrayBuffer().then(() => r.ok), () => false);
      healthMs.push(performance.now() - t0);
      if (!ok) healthFailures++;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < deadline) {
        const status = await send().catch(() => 0);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        sent++;
      }
    }),
  );
  await prober;
  clearInterval(sampler);
  const metrics = await (await fetch(`${http}/metrics`)).text();
  const captured = metricValue(metrics, 'ragwatch_triplets_captured_total') ?? 0;
  const scored = metricValue(metrics, 'ragwatch_triplets_scored_total') ?? 0;
  const dropped = metricValue(metrics, 'ragwatch_dropped_total') ?? 0;
  console.error(`overload over ${transport}: ${sent} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}, RSS ${baseRss.toFixed(0)} → peak ${peak.toFixed(0)} MB`);
  figures.push({ bench: 'overload', figure: `rss_growth_mb_overload${suffix}`, value: peak - baseRss, unit: 'MB', baseline: baseRss, ratio: peak / baseRss });
  if (transport === 'grpc') return { growthMb: peak - baseRss, figures };
  figures.push({ bench: 'overload', figure: 'overload_offered_vs_scored', value: captured, unit: 'triplets', baseline: scored, ratio: scored > 0 ? captured / scored : null });
  figures.push({ bench: 'overload', figure: 'overload_healthz_p99_ms', value: percentile(healthMs, 99), unit: 'ms', baseline: null, ratio: null });
  figures.push({ bench: 'overload', figure: 'overload_healthz_failures', value: healthFailures, unit: 'requests', baseline: healthMs.length, ratio: null });
  figures.push({ bench: 'overload', figure: 'overload_dropped_total', value: dropped, unit: 'items', baseline: sent * TRACES_PER_BODY, ratio: null });
  return { growthMb: peak - baseRss, figures };
} finally {
  client?.close();
  proc.child.kill('SIGKILL');
  await proc.exited;
}
}

for (const [transport, suffix] of [['http', ''], ['grpc', '_grpc']] as const) {
  const runs = [];
  for (let i = 0; i < RUNS; i++) runs.push(await overload(transport, suffix));
  runs.sort((a, b) => a.growthMb - b.growthMb);
  console.error(`overload over ${transport}: RSS growth of ${RUNS} runs ${runs.map((r) => r.growthMb.toFixed(1)).join(', ')} MB; the median run's figures follow`);
  for (const f of runs[Math.floor(RUNS / 2)]!.figures) emit(f);
}

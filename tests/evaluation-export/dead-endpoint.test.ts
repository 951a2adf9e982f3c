/**
 * A dead receiver drops and counts without slowing scoring: the pipeline scores everything while the
 * receiver refuses connections or holds every request open, each result ends counted (exported or
 * dropped by reason, never lost silently), and shutdown stays within its grace period.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { createEvaluationExport } from '../../src/evaluation-export/create.ts';
import { Pipeline } from '../../src/roles/pipeline.ts';
import { createInstruments } from '../../src/telemetry/instruments.ts';
import type { SampledTriplet } from '../../src/triplet.ts';
import { LexicalJudge } from '../helpers/lexical-judge.ts';
import { metricValue } from '../helpers/process.ts';

/** A TCP server that accepts connections and never answers (a black hole). */
let hole: Server;
const held: Socket[] = [];
let holePort = 0;
/** A port nothing listens on (connection refused). */
let refusedPort = 0;

beforeAll(async () => {
  hole = createServer((socket) => void held.push(socket));
  await new Promise<void>((r) => hole.listen(0, '127.0.0.1', r));
  holePort = (hole.address() as AddressInfo).port;
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  refusedPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
});
afterAll(async () => {
  for (const s of held) s.destroy();
  await new Promise<void>((r) => hole.close(() => r()));
});

function triplet(i: number): SampledTriplet {
  return {
    id: `t-${i}`,
    traceId: i.toString(16).padStart(32, '0'),
    spanId: i.toString(16).padStart(16, '0'),
    service: 'svc',
    timestamp: new Date().toISOString(),
    query: `When was item ${i} made?`,
    sources: [{ content: `Item ${i} was made in 2020 in Vadodara.` }],
    response: `Item ${i} was made in 2020. It glows in the dark.`,
    latency: { durationMs: 10 },
    convention: 'custom',
    sampling: { weight: 1, stratum: 'all', rule: 'rate' },
  };
}

const N = 300;

describe.each([
  ['refusing connections', 'http/protobuf', () => `http://127.0.0.1:${refusedPort}/v1/logs`],
  ['holding every request open', 'http/protobuf', () => `http://127.0.0.1:${holePort}/v1/logs`],
  ['holding every gRPC call open', 'grpc', () => `http://127.0.0.1:${holePort}`],
] as const)('a receiver %s', (_what, protocol, endpoint) => {
  it('costs scoring nothing; every result is counted as dropped by reason', async () => {
    const config = loadConfig({
      env: {},
      overrides: {
        metrics: { processMetrics: false },
        server: { shutdownGraceMs: 1_000 },
        // A small queue, a long timeout: were scoring waiting on the receiver, 300 answers would take minutes.
        evaluationExport: { otlp: { endpoint: endpoint(), protocol, maxQueueSize: 100, maxBatchSize: 50, scheduledDelayMs: 10, timeoutMs: 30_000, retry: { maxAttempts: 3 } } },
      },
    });
    const instruments = createInstruments({ processMetrics: false });
    const registry = instruments.registry;
    const exporter = createEvaluationExport(config, { registry })!;
    const pipeline = new Pipeline({ config, judge: new LexicalJudge(), instruments, sinks: [exporter], role: 'all' });
    await pipeline.start();
    let maxSinkMs = 0;
    let results = 0;
    pipeline.sinks.add({ onRecord: (r) => void (results += Object.keys(r.scores).length + Object.keys(r.skipped).length) });
    const timed = exporter.onRecord.bind(exporter);
    exporter.onRecord = (r, t) => {
      const s = performance.now();
      timed(r, t);
      maxSinkMs = Math.max(maxSinkMs, performance.now() - s);
    };
    const started = performance.now();
    for (let i = 0; i < N; i++) {
      instruments.inFlight.inc();
      pipeline.producer!.send(triplet(i));
    }
    await pipeline.forceFlush();
    const scoringMs = performance.now() - started;
    const exposition = await registry.metrics();
    expect(metricValue(exposition, 'ragwatch_triplets_scored_total', { judge: 'llm' })).toBe(N);
    // Scoring finished long before one export request could time out (30 s).
    expect(scoringMs).toBeLessThan(15_000);
    expect(maxSinkMs).toBeLessThan(50);
    const stopStarted = performance.now();
    await exporter.shutdown();
    await pipeline.shutdown();
    expect(performance.now() - stopStarted).toBeLessThan(8_000);
    const after = await registry.metrics();
    const dropped = (reason: string) => metricValue(after, 'ragwatch_evaluation_export_dropped_total', { writer: 'otlp', reason }) ?? 0;
    expect(results).toBeGreaterThanOrEqual(N * 3);
    expect(metricValue(after, 'ragwatch_evaluation_exported_total', { writer: 'otlp' })).toBe(0);
    expect(dropped('queue_full')).toBeGreaterThan(0);
    expect(dropped('queue_full') + dropped('retries_exhausted') + dropped('shutdown') + dropped('rejected')).toBe(results);
    expect(metricValue(after, 'ragwatch_evaluation_export_queue_size', { writer: 'otlp' })).toBe(0);
  }, 60_000);
});

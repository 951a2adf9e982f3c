/**
 * Fault case 2 (DESIGN §11 promise 4): the only broker of a one-node Apache Kafka cluster is killed
 * (`kill -9`) and restarted on the same address while `ragwatch start` (Kafka transport) keeps
 * receiving traffic. The producer buffers up to its bound, drops the rest (counted), recovers by
 * itself; the consumer rejoins; the accounting identity balances: messages lost unexplained = 0.
 *
 * The broker keeps its log on disk across the kill. The kill lands right after a request, at a
 * moment when the scorer has received everything produced so far (the new spans are still in trace
 * assembly), so the books at the kill are exact; traffic keeps flowing through the outage and after,
 * and everything must be accounted for exactly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haveKafka, startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-broker.ts';
import { reportFigure } from './figures.ts';
import { parseMetrics, startRagwatch, sumMetric, waitFor200, type RagwatchProcess } from './ragwatch-process.ts';
import { batchBody, post, type SendStats } from './traffic.ts';

const BUFFER = 50;
const OUTAGE_MS = 8_000;
const useKafka = haveKafka('fault 2 (broker kill/restart)');
let kafka: KafkaTestCluster | undefined;
let rw: RagwatchProcess | undefined;

beforeAll(async () => {
  if (useKafka) kafka = await startKafkaCluster();
});
afterAll(async () => {
  await rw?.cleanup();
  await kafka?.stop();
});

async function scrape(): Promise<Map<string, number>> {
  return parseMetrics(await (await fetch(`${rw!.apiUrl}/metrics`)).text());
}

function books(m: Map<string, number>) {
  const after = (k: string) => !/stage="(ingest|processor|capture|sampling)"/.test(k) && !k.includes('reason="duplicate"');
  return {
    captured: sumMetric(m, 'ragwatch_triplets_captured_total'),
    sampled: sumMetric(m, 'ragwatch_triplets_sampled_total'),
    notSampled: sumMetric(m, 'ragwatch_triplets_not_sampled_total'),
    scored: sumMetric(m, 'ragwatch_triplets_scored_total'),
    failed: sumMetric(m, 'ragwatch_triplets_failed_total'),
    dropped: sumMetric(m, 'ragwatch_dropped_total', after),
    inFlight: sumMetric(m, 'ragwatch_triplets_in_flight'),
    produced: sumMetric(m, 'ragwatch_triplets_produced_total'),
    received: sumMetric(m, 'ragwatch_triplets_received_total'),
    producerBuffer: sumMetric(m, 'ragwatch_kafka_producer_buffer_messages'),
  };
}

async function waitSettled(accepted: number, timeoutMs: number): Promise<ReturnType<typeof books>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const b = books(await scrape());
    // in_flight covers the producer buffer and the scorer; the topic itself holds produced − received.
    if ((b.captured >= accepted && b.inFlight === 0 && b.produced === b.received) || Date.now() > until) return b;
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe.runIf(useKafka)('fault 2: Kafka broker killed and restarted mid-stream', () => {
  it('producer bounds and counts, recovers by itself; nothing lost unexplained', { timeout: 240_000 }, async () => {
    rw = await startRagwatch({
      server: { otlpPort: 0, otlpGrpcPort: 0, httpPort: 0 },
      capture: { traceIdleMs: 200 },
      transport: { kind: 'kafka', kafka: { brokers: kafka!.brokers, connectionTimeoutMs: 1_000, producer: { maxBufferMessages: BUFFER, requestTimeoutMs: 2_000, maxRetryBackoffMs: 500, retryWindowMs: 2_000 } } },
      log: { level: 'info' },
    });
    await waitFor200(`${rw.apiUrl}/readyz`, 60_000);
    const stats: SendStats = { sent: 0, byStatus: {}, acceptedTraces: 0 };
    // Phase 1: normal traffic, scored.
    for (let i = 0; i < 8; i++) {
      await post(rw.otlpUrl, batchBody(5), 5, stats);
      await new Promise((r) => setTimeout(r, 250));
    }
    const before = await waitSettled(stats.acceptedTraces, 60_000);
    expect(before.inFlight).toBe(0);

    // Phase 2: a request every 500 ms throughout. Kill the cluster right after a request once the scorer
    // has received everything produced; restart it after the outage; keep sending 6 s more.
    let killedAt: number | undefined;
    let restartedAt: number | undefined;
    let duringOutage: ReturnType<typeof books> | undefined;
    let recoveryMs = NaN;
    let posts = 0;
    let atKill: { check: ReturnType<typeof books>; after: ReturnType<typeof books> } | undefined;
    const phase2Until = Date.now() + 120_000;
    while (Date.now() < phase2Until) {
      const iteration = Date.now();
      await post(rw.otlpUrl, batchBody(5), 5, stats);
      posts++;
      if (killedAt === undefined && posts >= 4) {
        const b = books(await scrape());
        if (b.produced === b.received && b.producerBuffer === 0) {
          await kafka!.kill(0);
          killedAt = Date.now();
          atKill = { check: b, after: books(await scrape()) };
        }
      } else if (killedAt !== undefined && restartedAt === undefined && Date.now() - killedAt >= OUTAGE_MS) {
        duringOutage = books(await scrape());
        await kafka!.restart(0);
        restartedAt = Date.now();
      } else if (restartedAt !== undefined) {
        if (Number.isNaN(recoveryMs) && books(await scrape()).produced > duringOutage!.produced) recoveryMs = Date.now() - restartedAt;
        if (Date.now() - restartedAt >= 6_000 && !Number.isNaN(recoveryMs)) break;
      }
      await new Promise((r) => setTimeout(r, Math.max(0, 500 - (Date.now() - iteration))));
    }
    expect(restartedAt).toBeDefined();

    const end = await waitSettled(stats.acceptedTraces, 90_000);
    const m = await scrape();
    const dropsByReason: Record<string, number> = {};
    for (const [k, v] of m) {
      const x = /^ragwatch_dropped_total\{(.*)\}$/.exec(k);
      if (x) dropsByReason[x[1]!.replace(/"/g, '')] = v;
    }
    // In Kafka mode in_flight covers the producer buffer and the scorer; what sits in the topic is produced − received.
    const lag = end.produced - end.received;
    const residual = end.captured - end.sampled - end.notSampled + (end.sampled - end.scored - end.failed - end.dropped - end.inFlight - lag);
    reportFigure({ fault: 'kafka_broker_restart', figure: 'messages_lost_unexplained', value: Math.abs(residual) + Math.abs(lag) + end.inFlight + Math.abs(stats.acceptedTraces - end.captured), acceptedTraces: stats.acceptedTraces, ...end, capturedDuringOutage: duringOutage && atKill ? duringOutage.captured - atKill.after.captured : null, atKill: atKill?.check });
    reportFigure({ fault: 'kafka_broker_restart', figure: 'recovery_ms', value: Math.round(recoveryMs), outageMs: OUTAGE_MS });
    reportFigure({ fault: 'kafka_broker_restart', figure: 'drops_by_reason', value: end.dropped, dropsByReason, producerBuffer: BUFFER });

    expect(rw.child.exitCode).toBeNull();
    expect(end.captured).toBe(stats.acceptedTraces);
    expect(end.inFlight).toBe(0);
    expect(lag).toBe(0);
    expect(residual).toBe(0);
    expect(Number.isFinite(recoveryMs)).toBe(true);
    // Scoring resumed after the restart: triplets sent after the outage were scored.
    expect(end.scored).toBeGreaterThan(before.scored);
  });
});

/**
 * Fault case 3 (DESIGN §11 promises 3, 4): `ragwatch scorer` is SIGKILLed mid-batch while a
 * `ragwatch collector` keeps the triplets topic fed (Apache Kafka, one KRaft node). A restarted scorer
 * in the same consumer group resumes from the committed offsets: every triplet ends with a score
 * record, the uncommitted ones are redelivered, and duplicates stay bounded by the commit interval.
 */
import { Kafka, logLevel, type Consumer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI, type FakeRequest } from '../fakes/openai-server.ts';
import { haveKafka, startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-broker.ts';
import { oracleResponder, parsePrompt } from '../judges/helpers/oracle.ts';
import { reportFigure } from './figures.ts';
import { parseMetrics, startRagwatch, sumMetric, waitFor200, type RagwatchProcess } from './ragwatch-process.ts';
import { openInferenceTrace, CLOCK_TOWER } from '../helpers/otlp.ts';
import { post, type SendStats } from './traffic.ts';

const TRIPLETS = 60;
/** Offsets are committed at least every 50 messages (src/transport/kafka-consumer.ts): the most a crash can redeliver per partition. */
const COMMIT_EVERY = 50;

const useKafka = haveKafka('fault 3 (scorer SIGKILL)');
let kafka: KafkaTestCluster | undefined;
let fake: FakeOpenAI;
const procs: RagwatchProcess[] = [];
let reader: Consumer | undefined;

beforeAll(async () => {
  const oracle = oracleResponder();
  // A slow judge (≈ 150 ms per call, 3 calls per triplet) keeps the scorer mid-batch.
  fake = await startFakeOpenAI((req: FakeRequest) => ({ ...oracle(req), firstChunkDelayMs: 150 }) as ReturnType<typeof oracle>);
  if (useKafka) kafka = await startKafkaCluster();
});
afterAll(async () => {
  await reader?.disconnect();
  for (const p of procs) await p.cleanup();
  await kafka?.stop();
  await fake?.close();
});

describe.runIf(useKafka)('fault 3: scorer SIGKILL mid-batch', () => {
  it('restart redelivers the uncommitted messages; nothing lost; duplicates bounded', { timeout: 240_000 }, async () => {
    const config = () => ({
      server: { otlpPort: 0, otlpGrpcPort: 0, httpPort: 0 },
      redaction: { hmacKey: 'fault-scorer-kill-hmac-key-0123456789' },
      capture: { traceIdleMs: 200 },
      // A short session timeout so the dead scorer's partitions move to the new one quickly.
      transport: { kind: 'kafka', kafka: { brokers: kafka!.brokers, assembly: 'local', consumer: { sessionTimeoutMs: 6_000, heartbeatIntervalMs: 1_000 } } },
      judge: { kind: 'llm', baseUrl: fake.baseURL, apiKey: 'test-key', model: 'judge-model', concurrency: 2, llm: { resultCacheSize: 0, factCacheSize: 0 } },
      log: { level: 'info' },
    });
    const collector = await startRagwatch(config(), { command: 'collector' });
    procs.push(collector);
    const scorerA = await startRagwatch(config(), { command: 'scorer' });
    procs.push(scorerA);
    await waitFor200(`${scorerA.apiUrl}/readyz`, 60_000);

    // Everything on the scores topic, by triplet id.
    const scores: string[] = [];
    reader = new Kafka({ clientId: 'fault3-reader', brokers: kafka!.brokers, logLevel: logLevel.NOTHING }).consumer({ groupId: `fault3-reader-${Date.now()}` });
    await reader.connect();
    await reader.subscribe({ topic: 'ragwatch.scores.v1', fromBeginning: true });
    await reader.run({ eachMessage: async ({ message }) => void scores.push((JSON.parse(message.value!.toString()) as { tripletId: string }).tripletId) });

    const stats: SendStats = { sent: 0, byStatus: {}, acceptedTraces: 0 };
    for (let i = 0; i < TRIPLETS / 20; i++) {
      const resourceSpans = Array.from({ length: 20 }, (_, k) => openInferenceTrace({ ...CLOCK_TOWER, query: `${CLOCK_TOWER.query} (request ${i * 20 + k})` }).body.resourceSpans as unknown[]).flat();
      await post(collector.otlpUrl, JSON.stringify({ resourceSpans }), 20, stats);
    }
    expect(stats.acceptedTraces).toBe(TRIPLETS);

    // Kill once the scorer has judged about a third of the triplets: some batches committed, one in progress.
    const until = Date.now() + 120_000;
    while (fake.requests.length < TRIPLETS && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    scorerA.child.kill('SIGKILL');
    await scorerA.exited;
    const killedAt = Date.now();
    const queryOf = (r: FakeRequest) => parsePrompt(r).blocks.find((b) => b.kind === 'query')?.text ?? '';
    const judgedByA = new Set(fake.requests.filter((r) => r.receivedAtMs <= killedAt).map(queryOf)).size;
    // What A committed, from the group's offsets (its scores were published before each commit).
    const admin = new Kafka({ clientId: 'fault3-admin', brokers: kafka!.brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    const offsets = await admin.fetchOffsets({ groupId: 'ragwatch-scorer', topics: ['ragwatch.triplets.v1'] });
    await admin.disconnect();
    const committedByA = offsets.flatMap((t) => t.partitions).reduce((a, p) => a + Math.max(0, Number(p.offset)), 0);

    const scorerB = await startRagwatch(config(), { command: 'scorer' });
    procs.push(scorerB);
    const produced = sumMetric(parseMetrics(await (await fetch(`${collector.apiUrl}/metrics`)).text()), 'ragwatch_triplets_produced_total');
    const done = Date.now() + 150_000;
    while (new Set(scores).size < produced && Date.now() < done) await new Promise((r) => setTimeout(r, 250));
    await new Promise((r) => setTimeout(r, 2_000));
    const b = parseMetrics(await (await fetch(`${scorerB.apiUrl}/metrics`)).text());
    const receivedByB = sumMetric(b, 'ragwatch_triplets_received_total');
    const distinct = new Set(scores).size;
    const duplicates = scores.length - distinct;

    reportFigure({ fault: 'scorer_sigkill', figure: 'lost', value: produced - distinct, produced, distinctScored: distinct });
    reportFigure({ fault: 'scorer_sigkill', figure: 'redelivered_after_restart', value: receivedByB, committedByA, judgedByA, judgedButUncommitted: judgedByA - committedByA });
    reportFigure({ fault: 'scorer_sigkill', figure: 'duplicate_score_records', value: duplicates, bound: COMMIT_EVERY });

    expect(produced).toBe(TRIPLETS);
    expect(distinct).toBe(produced);
    // The kill landed mid-batch: A had judged triplets it never committed.
    expect(judgedByA).toBeGreaterThan(committedByA);
    // B resumed from A's committed offsets: it received exactly everything A had not committed (nothing skipped).
    expect(receivedByB).toBe(produced - committedByA);
    expect(duplicates).toBeLessThanOrEqual(COMMIT_EVERY);
  });
});

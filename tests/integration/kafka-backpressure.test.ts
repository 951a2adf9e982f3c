/**
 * Judge back-pressure end to end: the OpenAI-compatible endpoint (the fake server) answers 429
 * with `Retry-After: 1`; the LLM judge (no retries of its own here) returns a retriable failure
 * carrying `retryAfterMs`, the scorer pauses the partition for that long instead of failing the
 * triplet, and every triplet is scored once the endpoint recovers — nothing in the DLQ.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import { SCHEMA_VERSION, type SampledTriplet, type ScoreRecord } from '../../src/triplet.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.ts';
import { haveKafka, startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-broker.ts';
import { waitFor } from '../helpers/process.ts';
import { oracleResponder } from '../judges/helpers/oracle.ts';
import { readTopic, roleConfig, scrape, startRole, type RoleProcess, type TopicReader } from './kafka-process.ts';

const enabled = haveKafka('tests/integration/kafka-backpressure.test.ts');

function triplet(i: number): SampledTriplet {
  const traceId = randomUUID().replaceAll('-', '');
  return {
    id: `id-${traceId}`,
    traceId,
    spanId: '00f067aa0ba902b7',
    service: 'rag',
    timestamp: new Date().toISOString(),
    query: `What colour is widget ${i}?`,
    sources: [{ content: `Widget ${i} is green and was made in 2020.` }],
    response: `Widget ${i} is green.`,
    latency: { durationMs: 500 },
    convention: 'openinference',
    sampling: { weight: 1, stratum: 'all', rule: 'rate' },
  };
}

describe.skipIf(!enabled)('judge 429 pauses the partition instead of failing triplets', () => {
  let broker: KafkaTestCluster;
  let judge: FakeOpenAI;
  let scorer: RoleProcess | undefined;
  const readers: TopicReader[] = [];
  const rejectedAt: number[] = [];

  beforeAll(async () => {
    broker = await startKafkaCluster();
    const oracle = oracleResponder();
    judge = await startFakeOpenAI((req) => {
      if (rejectedAt.length < 3) {
        rejectedAt.push(Date.now());
        return { status: 429, body: { error: { message: 'rate limited', type: 'rate_limit' } }, headers: { 'retry-after': '1' } };
      }
      return oracle(req);
    });
  }, 180_000);
  afterAll(async () => {
    for (const r of readers) await r.stop();
    await scorer?.cleanup();
    await broker?.stop();
    await judge?.close();
  });

  it('scores every triplet after the Retry-After pauses, with nothing in the DLQ', async () => {
    const prefix = `bp-${randomUUID().slice(0, 8)}`;
    const config = roleConfig(broker.brokers, prefix, { consumer: { maxAttempts: 6 } }, judge.baseURL);
    const judgeSection = config.judge as { concurrency: number; llm: Record<string, unknown> };
    judgeSection.concurrency = 1;
    judgeSection.llm.maxRetries = 0;
    const topics = { triplets: `${prefix}.triplets.v1`, scores: `${prefix}.scores.v1`, dlq: `${prefix}.triplets.dlq` };
    scorer = await startRole('scorer', config);
    const sent = Array.from({ length: 4 }, (_, i) => triplet(i));
    const raw = new Kafka({ brokers: broker.brokers, logLevel: logLevel.NOTHING }).producer();
    await raw.connect();
    await raw.send({ topic: topics.triplets, acks: -1, messages: sent.map((t) => ({ key: 'k', value: JSON.stringify(t), headers: { 'schema-version': SCHEMA_VERSION } })) });
    await raw.disconnect();

    const scores = await readTopic(broker.brokers, topics.scores);
    readers.push(scores);
    await waitFor(() => scores.messages.length >= sent.length, 45_000, 200);
    const ids = scores.messages.map((m) => (JSON.parse(String(m.value)) as ScoreRecord).tripletId);
    expect(ids.sort()).toEqual(sent.map((t) => t.id).sort());

    expect(rejectedAt).toHaveLength(3);
    // Each 429 paused the partition for Retry-After (1 s) before the next judge call.
    const served = judge.requests.filter((r) => r.receivedAtMs > rejectedAt[2]!);
    expect(served.length).toBeGreaterThan(0);
    expect(served[0]!.receivedAtMs - rejectedAt[2]!).toBeGreaterThanOrEqual(900);
    expect(rejectedAt[1]! - rejectedAt[0]!).toBeGreaterThanOrEqual(900);
    expect(await scrape(scorer.apiUrl, 'ragwatch_dlq_messages_total')).toBe(0);
    expect(await scrape(scorer.apiUrl, 'ragwatch_triplets_failed_total')).toBe(0);
    expect(await scrape(scorer.apiUrl, 'ragwatch_triplets_scored_total')).toBe(sent.length);
    expect(await scrape(scorer.apiUrl, 'ragwatch_kafka_partitions_paused')).toBe(0);
    // Split mode: the scorer also keeps the windowed means (QualityMonitor) of what it scored.
    await waitFor(async () => (await scrape(scorer!.apiUrl, 'ragwatch_score_mean_ratio', { metric: 'groundedness' })) > 0, 15_000, 250);
  }, 90_000);
});

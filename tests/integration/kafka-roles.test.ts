/**
 * Collector and scorers as separate processes on Apache Kafka (one KRaft node): 1,000 triplets via
 * OTLP → collector → Kafka → two scorers sharing the 4 partitions → scores topic. One scorer is
 * SIGKILLed mid-stream; the other takes over after the rebalance and nothing is lost: every
 * trace has a score record (counted by id on the scores topic; redeliveries are duplicates of
 * the same id, never missing ones).
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScoreRecord } from '../../src/triplet.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.ts';
import { haveKafka, startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-broker.ts';
import { oracleResponder } from '../judges/helpers/oracle.ts';
import { waitFor } from '../helpers/process.ts';
import { readTopic, roleConfig, scrape, sendTraces, startRole, type RoleProcess, type TopicReader } from './kafka-process.ts';

const enabled = haveKafka('tests/integration/kafka-roles.test.ts');

describe.skipIf(!enabled)('ragwatch collector + two scorers on Apache Kafka', () => {
  let broker: KafkaTestCluster;
  let judge: FakeOpenAI;
  const procs: RoleProcess[] = [];
  const readers: TopicReader[] = [];

  beforeAll(async () => {
    broker = await startKafkaCluster();
    judge = await startFakeOpenAI(oracleResponder());
  }, 180_000);
  afterAll(async () => {
    for (const r of readers) await r.stop();
    for (const p of procs) await p.cleanup();
    await broker?.stop();
    await judge?.close();
  });

  it('scores 1,000 triplets exactly once or deduplicated, surviving a scorer killed mid-stream', async () => {
    const prefix = `roles-${randomUUID().slice(0, 8)}`;
    const config = roleConfig(broker.brokers, prefix, {}, judge.baseURL);
    const topics = (config.transport as { kafka: { topics: { scores: string; triplets: string } } }).kafka.topics;
    const [collector, scorerA, scorerB] = await Promise.all([startRole('collector', config), startRole('scorer', config), startRole('scorer', config)]);
    procs.push(collector!, scorerA!, scorerB!);
    const scores = await readTopic(broker.brokers, topics.scores);
    readers.push(scores);
    await waitFor(async () => (await fetch(`${scorerA!.apiUrl}/readyz`)).status === 200 && (await fetch(`${scorerB!.apiUrl}/readyz`)).status === 200, 30_000, 200);
    // The two scorers share the topic's 4 partitions (roleConfig creates 4) before traffic starts.
    await waitFor(async () => {
      const a = await scrape(scorerA!.apiUrl, 'ragwatch_kafka_partitions_assigned');
      const b = await scrape(scorerB!.apiUrl, 'ragwatch_kafka_partitions_assigned');
      return a > 0 && b > 0 && a + b === 4;
    }, 40_000, 200);

    const traceIdsOfScores = () => scores.messages.map((m) => (JSON.parse(String(m.value)) as ScoreRecord).traceId);
    const t0 = Date.now();
    const step = (what: string) => console.info(`kafka-roles +${Date.now() - t0} ms: ${what}`);
    step('scorers ready');
    const first = await sendTraces(collector!.otlpUrl!, 500, 50, 'a');
    // Both scorers own partitions of the same group: each scores part of the first wave.
    await waitFor(async () => (await scrape(scorerA!.apiUrl, 'ragwatch_triplets_scored_total')) > 0 && (await scrape(scorerB!.apiUrl, 'ragwatch_triplets_scored_total')) > 0, 40_000, 200);
    const scoredByABeforeKill = await scrape(scorerA!.apiUrl, 'ragwatch_triplets_scored_total');
    expect(scoredByABeforeKill).toBeGreaterThan(0);

    step(`both scorers scoring; killing scorer A (${scoredByABeforeKill} scored)`);
    scorerA!.child.kill('SIGKILL');
    await scorerA!.exited;
    const second = await sendTraces(collector!.otlpUrl!, 500, 50, 'b');
    const sent = new Set([...first, ...second]);
    expect(sent.size).toBe(1_000);

    step('second wave sent');
    let lastLog = 0;
    await waitFor(async () => {
      const n = new Set(traceIdsOfScores()).size;
      if (Date.now() - lastLog > 5_000) {
        lastLog = Date.now();
        step(`${n} unique scores; B scored ${await scrape(scorerB!.apiUrl, 'ragwatch_triplets_scored_total')}, lag ${await scrape(scorerB!.apiUrl, 'ragwatch_kafka_consumer_lag_messages')}, received ${await scrape(scorerB!.apiUrl, 'ragwatch_triplets_received_total')}`);
      }
      return n >= 1_000;
    }, 60_000, 250);
    step('1,000 unique scores');
    const ids = traceIdsOfScores();
    const unique = new Set(ids);
    expect([...unique].every((id) => sent.has(id))).toBe(true);
    expect(unique.size).toBe(1_000);
    // At-least-once: redeliveries after the kill may repeat an id (dedupe is by triplet id), never miss one.
    const duplicates = ids.length - unique.size;
    console.info(`kafka-roles: ${ids.length} score records, ${unique.size} unique, ${duplicates} duplicates after the kill`);
    expect(duplicates).toBeLessThan(200);

    // Collector accounting: captured = sampled + not_sampled; sampled = produced + dropped + in_flight.
    const c = collector!.apiUrl;
    expect(await scrape(c, 'ragwatch_triplets_captured_total')).toBe(1_000);
    expect(await scrape(c, 'ragwatch_triplets_sampled_total')).toBe(1_000);
    expect(await scrape(c, 'ragwatch_triplets_produced_total')).toBe(1_000);
    expect(await scrape(c, 'ragwatch_triplets_in_flight')).toBe(0);

    // Surviving scorer: received = scored + failed + dropped + in_flight, and it took over A's partitions.
    const b = scorerB!.apiUrl;
    await waitFor(async () => (await scrape(b, 'ragwatch_triplets_in_flight')) === 0, 10_000, 200);
    const received = await scrape(b, 'ragwatch_triplets_received_total');
    const scoredB = await scrape(b, 'ragwatch_triplets_scored_total');
    const settled = scoredB + (await scrape(b, 'ragwatch_triplets_failed_total')) + (await scrape(b, 'ragwatch_dropped_total', { stage: 'scorer' }));
    expect(settled).toBe(received);
    expect(scoredB).toBeGreaterThanOrEqual(1_000 - scoredByABeforeKill);
    expect(await scrape(b, 'ragwatch_kafka_consumer_lag_messages')).toBe(0);
  }, 120_000);
});

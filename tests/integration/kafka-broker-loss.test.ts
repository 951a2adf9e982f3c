/**
 * Broker loss: the only broker of a one-node Apache Kafka cluster is killed (`kill -9`) while
 * `ragwatch collector` is producing. The collector keeps answering OTLP, buffers up to its bound,
 * drops the excess with a counter, and resumes producing when the broker comes back on the same
 * address with its data, without a restart: the topic then holds what was acknowledged before the
 * outage and what was buffered during it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SampledTriplet } from '../../src/triplet.ts';
import { haveKafka, startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-broker.ts';
import { waitFor } from '../helpers/process.ts';
import { readTopicOnce, roleConfig, scrape, sendTraces, startRole, type RoleProcess } from './kafka-process.ts';

const enabled = haveKafka('tests/integration/kafka-broker-loss.test.ts');

describe.skipIf(!enabled)('collector survives broker loss', () => {
  let kafka: KafkaTestCluster;
  let collector: RoleProcess | undefined;

  beforeAll(async () => {
    kafka = await startKafkaCluster();
  }, 180_000);
  afterAll(async () => {
    await collector?.cleanup();
    await kafka?.stop();
  });

  it('buffers to its bound, counts the drops, and resumes when the broker is back at the same address', async () => {
    const prefix = `loss-${randomUUID().slice(0, 8)}`;
    const bound = 50;
    // A short retry window: failed batches come back to the buffer (and are counted) within seconds.
    const config = roleConfig(kafka.brokers, prefix, { producer: { maxBufferMessages: bound, requestTimeoutMs: 1_000, retryWindowMs: 2_000 } });
    const topic = `${prefix}.triplets.v1`;
    collector = await startRole('collector', config);
    const api = collector.apiUrl;
    const otlp = collector.otlpUrl!;

    const before = new Set(await sendTraces(otlp, 20, 20, 'before'));
    await waitFor(async () => (await scrape(api, 'ragwatch_triplets_produced_total')) === 20, 20_000, 100);

    await kafka.kill(0);
    // OTLP keeps answering 200 while Kafka is gone (sendTraces throws on any other status).
    const during = new Set(await sendTraces(otlp, 100, 25, 'during', 100));
    expect((await fetch(`${api}/healthz`)).status).toBe(200);
    await waitFor(async () => (await scrape(api, 'ragwatch_triplets_sampled_total')) === 120, 10_000, 100);
    expect(await scrape(api, 'ragwatch_kafka_producer_buffer_messages')).toBe(bound);
    expect(await scrape(api, 'ragwatch_dropped_total', { stage: 'transport', reason: 'buffer_full' })).toBe(100 - bound);
    expect(await scrape(api, 'ragwatch_triplets_in_flight')).toBe(bound);
    await waitFor(async () => (await scrape(api, 'ragwatch_kafka_produce_errors_total')) > 0, 15_000, 200);

    await kafka.restart(0);
    await waitFor(async () => (await scrape(api, 'ragwatch_triplets_produced_total')) === 20 + bound, 60_000, 200);
    expect(await scrape(api, 'ragwatch_kafka_producer_buffer_messages')).toBe(0);
    // The broker kept its log: the topic holds the 20 acknowledged before the outage and the `bound`
    // buffered during it (the newest were dropped). Read without a consumer group (kcat, partition by
    // partition). A batch re-sent after the retry window may be written twice (new sequence numbers);
    // scorers dedupe by triplet id: count distinct ids.
    const delivered = (await readTopicOnce(kafka.brokers, topic)).map((v) => (JSON.parse(v) as SampledTriplet).traceId);
    expect(new Set(delivered).size).toBe(20 + bound);
    expect(delivered.filter((id) => !before.has(id)).every((id) => during.has(id))).toBe(true);
    expect([...before].every((id) => delivered.includes(id))).toBe(true);

    // And it keeps producing normally afterwards.
    await sendTraces(otlp, 10, 10, 'after');
    await waitFor(async () => (await scrape(api, 'ragwatch_triplets_produced_total')) === 30 + bound, 20_000, 100);
    // Accounting: sampled = produced + dropped + in_flight.
    const sampled = await scrape(api, 'ragwatch_triplets_sampled_total');
    const produced = await scrape(api, 'ragwatch_triplets_produced_total');
    const dropped = await scrape(api, 'ragwatch_dropped_total', { stage: 'transport' });
    expect(sampled).toBe(130);
    expect(produced + dropped + (await scrape(api, 'ragwatch_triplets_in_flight'))).toBe(sampled);
    expect(collector.child.exitCode).toBeNull();

    // SIGTERM: stop ingest, flush the producer, exit 0 within the grace period.
    const stopping = performance.now();
    collector.child.kill('SIGTERM');
    expect(await collector.exited).toBe(0);
    expect(performance.now() - stopping).toBeLessThan(4_000);
  }, 120_000);
});

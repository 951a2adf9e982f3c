/**
 * Fault case 5, Kafka part (DESIGN §11 promise 6): fast-check-generated poison messages (random
 * bytes, mutated and schema-breaking triplets, wrong schema-version headers, oversized values) mixed
 * with valid triplets on the triplets topic of a `ragwatch scorer` child process (Apache Kafka).
 * The scorer must not crash, every message must end scored, failed/DLQ or dropped, and no partition
 * may stall (committed offset = high watermark everywhere).
 */
import fc from 'fast-check';
import { Kafka, logLevel, type Message } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION, type SampledTriplet } from '../../src/triplet.ts';
import { haveKafka, startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-broker.ts';
import { reportFigure } from './figures.ts';
import { parseMetrics, startRagwatch, sumMetric, waitFor200, type RagwatchProcess } from './ragwatch-process.ts';

const MESSAGES = 2_000;
const TOPIC = 'ragwatch.triplets.v1';
const useKafka = haveKafka('fault 5 (Kafka message fuzzing)');
let kafka: KafkaTestCluster | undefined;
let rw: RagwatchProcess | undefined;

beforeAll(async () => {
  if (useKafka) kafka = await startKafkaCluster();
});
afterAll(async () => {
  await rw?.cleanup();
  await kafka?.stop();
});

function valid(i: number): SampledTriplet {
  const traceId = (i + 1).toString(16).padStart(32, '0');
  return {
    id: `fuzz-${i}`, traceId, spanId: 'abcdef0123456789', service: 'svc', timestamp: new Date().toISOString(),
    query: `When was the tower completed? (${i})`, sources: [{ content: 'The tower was completed in 1896.' }], response: 'It was completed in 1896. It has a clock.',
    latency: { durationMs: 100 }, convention: 'openinference', sampling: { weight: 1, stratum: 'all', rule: 'rate' },
  };
}

const headers = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ 'schema-version': SCHEMA_VERSION, 'content-type': 'application/json' }) },
  { weight: 1, arbitrary: fc.record({ 'schema-version': fc.string({ maxLength: 4 }) }) },
  { weight: 1, arbitrary: fc.constant({}) },
);
/** Replaces one field of a valid triplet with anything (schema-breaking most of the time). */
const broken = fc.tuple(fc.nat(), fc.constantFrom('id', 'traceId', 'query', 'sources', 'response', 'latency', 'sampling', 'convention', 'timestamp', 'redactions'), fc.anything({ maxDepth: 3 }))
  .map(([i, k, v]) => JSON.stringify({ ...valid(i), [k]: v }));
const mutated = fc.tuple(fc.nat(), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 255 })), { minLength: 1, maxLength: 4 }), fc.option(fc.nat(), { nil: undefined }))
  .map(([i, flips, cut]) => {
    const b = Buffer.from(JSON.stringify(valid(i)));
    for (const [at, bits] of flips) b[at % b.length] = b[at % b.length]! ^ bits;
    return cut === undefined ? b : b.subarray(0, cut % b.length);
  });
const value = fc.oneof(
  { weight: 2, arbitrary: fc.nat().map((i) => JSON.stringify(valid(i))) },
  { weight: 3, arbitrary: broken },
  { weight: 3, arbitrary: mutated },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 512 }).map((u) => Buffer.from(u)) },
  { weight: 1, arbitrary: fc.json({ maxDepth: 4 }) },
);

describe.runIf(useKafka)('fault 5: fuzzing the Kafka message parser of ragwatch scorer', () => {
  it(`${MESSAGES} generated messages: no crash, nothing unaccounted, no stalled partition`, { timeout: 240_000 }, async () => {
    // The oversized values need a topic that takes them (a broker's default refuses records over 1 MB):
    // the scorer's own limit (consumer.maxMessageBytes) is what is tested. The scorer leaves it as it is.
    await kafka!.createTopic(TOPIC, 4, { 'max.message.bytes': String(4 * 1024 * 1024) });
    rw = await startRagwatch(
      { server: { httpPort: 0 }, transport: { kind: 'kafka', kafka: { brokers: kafka!.brokers, consumer: { maxAttempts: 1 } } }, judge: { kind: 'embedded' }, log: { level: 'info' } },
      { command: 'scorer' },
    );
    await waitFor200(`${rw.apiUrl}/readyz`, 60_000);

    const generated = fc.sample(fc.record({ key: fc.option(fc.string({ maxLength: 16 }), { nil: null }), value, headers }), { numRuns: MESSAGES, seed: 20261122 });
    // Two oversized values (over consumer.maxMessageBytes, 1 MiB) ride along.
    const messages: Message[] = [...generated, { key: 'big', value: Buffer.alloc(1_200_000, 0x7b), headers: { 'schema-version': SCHEMA_VERSION } }, { key: 'big2', value: `"${'x'.repeat(1_100_000)}"` }];
    const client = new Kafka({ clientId: 'fuzz-producer', brokers: kafka!.brokers, logLevel: logLevel.NOTHING });
    const producer = client.producer({ allowAutoTopicCreation: true });
    await producer.connect();
    for (let i = 0; i < messages.length; i += 200) await producer.send({ topic: TOPIC, acks: -1, messages: messages.slice(i, i + 200) });
    await producer.disconnect();

    const until = Date.now() + 150_000;
    let m: Map<string, number>;
    while (Date.now() < until) {
      m = parseMetrics(await (await fetch(`${rw.apiUrl}/metrics`)).text());
      const settled = sumMetric(m, 'ragwatch_triplets_scored_total') + sumMetric(m, 'ragwatch_triplets_failed_total') + sumMetric(m, 'ragwatch_dropped_total', (k) => k.includes('stage="scorer"'));
      if (sumMetric(m, 'ragwatch_triplets_received_total') >= messages.length && settled >= messages.length && sumMetric(m, 'ragwatch_triplets_in_flight') === 0) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    await new Promise((r) => setTimeout(r, 1_500));
    m = parseMetrics(await (await fetch(`${rw.apiUrl}/metrics`)).text());
    const admin = client.admin();
    await admin.connect();
    const high = await admin.fetchTopicOffsets(TOPIC);
    const committed = (await admin.fetchOffsets({ groupId: 'ragwatch-scorer', topics: [TOPIC] }))[0]!.partitions;
    await admin.disconnect();
    const stalled = high.filter((p) => committed.find((c) => c.partition === p.partition)?.offset !== p.high).length;

    const received = sumMetric(m, 'ragwatch_triplets_received_total');
    const scored = sumMetric(m, 'ragwatch_triplets_scored_total');
    const failed = sumMetric(m, 'ragwatch_triplets_failed_total');
    const dropped = sumMetric(m, 'ragwatch_dropped_total', (k) => k.includes('stage="scorer"'));
    const inFlight = sumMetric(m, 'ragwatch_triplets_in_flight');
    const dlq = sumMetric(m, 'ragwatch_dlq_messages_total');
    const dlqByReason: Record<string, number> = {};
    for (const [k, v] of m) {
      const x = /^ragwatch_dlq_messages_total\{(.*)\}$/.exec(k);
      if (x) dlqByReason[x[1]!.replace(/"/g, '')] = v;
    }
    const crashed = rw.child.exitCode !== null || rw.child.signalCode !== null;
    reportFigure({ fault: 'fuzz_kafka', figure: 'generated_messages', value: messages.length, received, scored, failed, dropped, dlq });
    reportFigure({ fault: 'fuzz_kafka', figure: 'crashes', value: crashed ? 1 : 0 });
    reportFigure({ fault: 'fuzz_kafka', figure: 'stalled_partitions', value: stalled, partitions: high.length });
    reportFigure({ fault: 'fuzz_kafka', figure: 'unaccounted', value: received - scored - failed - dropped - inFlight, dlqByReason });

    expect(crashed).toBe(false);
    expect(received).toBe(messages.length);
    expect(received - scored - failed - dropped - inFlight).toBe(0);
    expect(inFlight).toBe(0);
    expect(scored).toBeGreaterThan(0);
    expect(dlq).toBe(failed);
    expect(stalled).toBe(0);
  });
});

/**
 * Kafka transport against Apache Kafka (one KRaft node, tests/helpers/kafka-broker.ts): producer
 * batching/headers/bounded buffer, consumer poison handling (DLQ with error headers, the partition
 * keeps flowing), de-duplication and pause/resume on judge back-pressure. Several cases wait for a
 * pause, a redelivery or a producer thread's restart on real time.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Kafka, logLevel, type IHeaders, type KafkaMessage } from 'kafkajs';
import { pino } from 'pino';
import { defaultConfig } from '../../src/config/load.ts';
import { createInstruments, type Instruments } from '../../src/telemetry/instruments.ts';
import { BufferedKafkaProducer } from '../../src/transport/kafka-buffered-producer.ts';
import { createKafka, type KafkaSection } from '../../src/transport/kafka-client.ts';
import { KafkaTripletConsumer } from '../../src/transport/kafka-consumer.ts';
import { KafkaTripletProducer } from '../../src/transport/kafka-producer.ts';
import type { HandleContext, HandleResult } from '../../src/transport/types.ts';
import { SCHEMA_VERSION, type SampledTriplet } from '../../src/triplet.ts';
import { haveKafka, startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-broker.ts';
import { waitFor } from '../helpers/process.ts';

const enabled = haveKafka('tests/transport/kafka.integration.test.ts');

function triplet(i: number, traceId = randomUUID().replaceAll('-', '')): SampledTriplet {
  return {
    id: `t-${traceId}-${i}`,
    traceId,
    spanId: 'abcd',
    service: 'svc',
    timestamp: new Date().toISOString(),
    query: `question ${i}`,
    sources: [{ content: 'The sky is blue.' }],
    response: 'It is blue.',
    latency: { durationMs: 100 },
    convention: 'openinference',
    sampling: { weight: 1, stratum: 'all', rule: 'rate' },
  };
}

function headerOf(headers: IHeaders | undefined, name: string): string | undefined {
  const v = headers?.[name];
  return v === undefined ? undefined : String(Array.isArray(v) ? v[0] : v);
}

/** Reads every message of a topic from the beginning until `count` arrived. */
async function readTopic(brokers: string[], topic: string, count: number, timeoutMs = 20_000): Promise<KafkaMessage[]> {
  const kafka = new Kafka({ brokers, logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `reader-${randomUUID()}`, maxBytesPerPartition: 8 * 1024 * 1024, maxWaitTimeInMs: 200 });
  const got: KafkaMessage[] = [];
  await consumer.connect();
  try {
    // The topic may not exist yet (the consumer under test creates it on its first send): retry.
    await waitFor(() => consumer.subscribe({ topic, fromBeginning: true }).then(() => true, () => false), timeoutMs, 250);
    await consumer.run({ eachMessage: async ({ message }) => void got.push(message) });
    await waitFor(() => got.length >= count, timeoutMs);
    return got;
  } finally {
    await consumer.disconnect();
  }
}

function sectionFor(brokers: string[], topicPrefix: string, overrides: Partial<KafkaSection['consumer']> = {}): KafkaSection {
  const base = defaultConfig().transport.kafka;
  return {
    ...base,
    brokers,
    groupId: `${topicPrefix}-group`,
    topics: { spans: `${topicPrefix}.spans`, triplets: `${topicPrefix}.triplets`, scores: `${topicPrefix}.scores`, dlq: `${topicPrefix}.dlq`, labels: `${topicPrefix}.labels`, topicModels: `${topicPrefix}.topics` },
    producer: { ...base.producer, lingerMs: 5 },
    consumer: { ...base.consumer, sessionTimeoutMs: 6_000, heartbeatIntervalMs: 500, ...overrides },
  };
}

describe.skipIf(!enabled)('kafka transport on Apache Kafka', () => {
  let broker: KafkaTestCluster;
  const cleanups: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    broker = await startKafkaCluster();
  }, 180_000);
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    await broker?.stop();
  });

  it('produces batched triplets with key, schema-version header and counts them as produced', async () => {
    const instruments = createInstruments({ processMetrics: false });
    const section = sectionFor(broker.brokers, `p-${randomUUID().slice(0, 8)}`);
    const producer = new KafkaTripletProducer({ section, instruments });
    cleanups.push(() => producer.shutdown(1000));
    const sent = Array.from({ length: 120 }, (_, i) => triplet(i));
    for (const t of sent) {
      instruments.inFlight.inc();
      expect(producer.send(t)).toBe(true);
    }
    await producer.forceFlush();
    expect((await instruments.produced.get()).values[0]?.value).toBe(120);
    expect((await instruments.inFlight.get()).values[0]?.value).toBe(0);
    const got = await readTopic(broker.brokers, section.topics.triplets, 120);
    expect(new Set(got.map((m) => JSON.parse(String(m.value)).id))).toEqual(new Set(sent.map((t) => t.id)));
    const first = got[0]!;
    expect(headerOf(first.headers, 'schema-version')).toBe(SCHEMA_VERSION);
    expect(headerOf(first.headers, 'content-type')).toBe('application/json');
    const parsed = JSON.parse(String(first.value)) as SampledTriplet;
    expect(String(first.key)).toBe(parsed.traceId);
  });

  it('never blocks: a full buffer drops the newest and counts it while Kafka is unreachable', async () => {
    const instruments = createInstruments({ processMetrics: false });
    const base = sectionFor(['127.0.0.1:1'], `down-${randomUUID().slice(0, 8)}`);
    const section = { ...base, connectionTimeoutMs: 200, producer: { ...base.producer, maxBufferMessages: 10 } };
    const producer = new KafkaTripletProducer({ section, instruments });
    const started = performance.now();
    const accepted = Array.from({ length: 25 }, (_, i) => {
      instruments.inFlight.inc();
      return producer.send(triplet(i));
    });
    expect(performance.now() - started).toBeLessThan(50);
    expect(accepted.filter(Boolean)).toHaveLength(10);
    expect((await instruments.dropped.get()).values.find((v) => v.labels.reason === 'buffer_full')?.value).toBe(15);
    expect(producer.depth).toBe(10);
    await producer.shutdown(300);
    expect((await instruments.dropped.get()).values.find((v) => v.labels.reason === 'shutdown')?.value).toBe(10);
    expect((await instruments.inFlight.get()).values[0]?.value).toBe(0);
    // Shut down for good: no thread starts again, whatever is asked.
    await expect(producer.connect()).rejects.toMatchObject({ code: 'RAGWATCH_SHUTDOWN' });
    instruments.inFlight.inc();
    expect(producer.send(triplet(99))).toBe(false);
    await producer.forceFlush();
    expect(producer.thread).toBeUndefined();
  });

  it('runs kafkajs on its own thread: a crashed thread’s messages are counted, and sending resumes on a new one', async () => {
    const instruments = createInstruments({ processMetrics: false });
    const section = sectionFor(broker.brokers, `thread-${randomUUID().slice(0, 8)}`);
    const producer = new KafkaTripletProducer({ section, instruments });
    cleanups.push(() => producer.shutdown(1000));
    const sendAll = (ts: SampledTriplet[]) => ts.forEach((t) => (instruments.inFlight.inc(), producer.send(t)));
    const first = Array.from({ length: 10 }, (_, i) => triplet(i));
    sendAll(first);
    await producer.forceFlush();
    const thread = producer.thread!;
    expect(thread.threadId).not.toBe(0);
    // A thread that dies holding messages: they are lost, and counted as such.
    const held = Array.from({ length: 5 }, (_, i) => triplet(100 + i));
    sendAll(held);
    await new Promise((r) => setImmediate(r));
    await thread.terminate();
    await waitFor(async () => (await instruments.dropped.get()).values.some((v) => v.labels.reason === 'producer_thread_exit'), 5_000, 20);
    expect((await instruments.dropped.get()).values.find((v) => v.labels.reason === 'producer_thread_exit')?.value).toBe(5);
    const after = Array.from({ length: 10 }, (_, i) => triplet(200 + i));
    sendAll(after);
    await producer.forceFlush();
    expect(producer.thread).not.toBe(thread);
    expect((await instruments.produced.get()).values[0]?.value).toBe(20);
    expect((await instruments.inFlight.get()).values[0]?.value).toBe(0);
    const got = await readTopic(broker.brokers, section.topics.triplets, 20);
    expect(new Set(got.map((m) => JSON.parse(String(m.value)).id))).toEqual(new Set([...first, ...after].map((t) => t.id)));
  });

  it('drops only the triplet that is too large or cannot be serialized, counted by reason', async () => {
    const instruments = createInstruments({ processMetrics: false });
    const base = sectionFor(broker.brokers, `bad-${randomUUID().slice(0, 8)}`);
    const section = { ...base, producer: { ...base.producer, maxMessageBytes: 4_096 } };
    const producer = new KafkaTripletProducer({ section, instruments });
    cleanups.push(() => producer.shutdown(1000));
    const good = Array.from({ length: 6 }, (_, i) => triplet(i));
    const huge = { ...triplet(50), response: 'x'.repeat(5_000) };
    const unserializable = { ...triplet(51), attributes: { big: 10n } } as unknown as SampledTriplet;
    for (const t of [good[0]!, huge, good[1]!, good[2]!, unserializable, ...good.slice(3)]) {
      instruments.inFlight.inc();
      producer.send(t);
    }
    await producer.forceFlush();
    const dropped = (await instruments.dropped.get()).values;
    expect(dropped.find((v) => v.labels.reason === 'too_large')?.value).toBe(1);
    expect(dropped.find((v) => v.labels.reason === 'unserializable')?.value).toBe(1);
    expect((await instruments.produced.get()).values[0]?.value).toBe(6);
    expect((await instruments.inFlight.get()).values[0]?.value).toBe(0);
    const got = await readTopic(broker.brokers, section.topics.triplets, 6);
    expect(new Set(got.map((m) => JSON.parse(String(m.value)).id))).toEqual(new Set(good.map((t) => t.id)));
  });

  it('forwards the producer thread’s logs to the caller’s logger', async () => {
    const lines: Array<{ level: number; msg: string; err?: string }> = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const base = sectionFor(['127.0.0.1:1'], `log-${randomUUID().slice(0, 8)}`);
    const section = { ...base, connectionTimeoutMs: 200 };
    const producer = new KafkaTripletProducer({ section, instruments: createInstruments({ processMetrics: false }), logger });
    producer.send(triplet(1));
    await waitFor(async () => lines.some((l) => l.msg === 'kafka send failed; buffering and retrying'), 10_000, 50);
    expect(lines.find((l) => l.msg === 'kafka send failed; buffering and retrying')?.level).toBe(40);
    await producer.shutdown(200);
  });

  describe('consumer', () => {
    async function runConsumer(section: KafkaSection, instruments: Instruments, handler: (t: SampledTriplet, c?: HandleContext) => Promise<HandleResult>) {
      const kafka = createKafka(section);
      const out = new BufferedKafkaProducer({ kafka, topic: section.topics.scores });
      const consumer = new KafkaTripletConsumer({ kafka, section, instruments, producer: out, concurrency: 2 });
      cleanups.push(async () => {
        await consumer.shutdown();
        await out.shutdown(500);
      });
      await consumer.start(handler);
      return consumer;
    }

    it('sends poison messages to the DLQ with error/stage headers and keeps the partition flowing', async () => {
      const instruments = createInstruments({ processMetrics: false });
      const prefix = `poison-${randomUUID().slice(0, 8)}`;
      const section = sectionFor(broker.brokers, prefix);
      // The 2 MB poison needs a topic that takes it (a broker's default refuses records over 1 MB): the
      // consumer's own limit (consumer.maxMessageBytes) is what is tested.
      await broker.createTopic(section.topics.triplets, 4, { 'max.message.bytes': String(4 * 1024 * 1024) });
      const raw = new Kafka({ brokers: broker.brokers, logLevel: logLevel.NOTHING }).producer();
      await raw.connect();
      cleanups.push(() => raw.disconnect());
      const key = 'same-key-same-partition';
      const h = { 'schema-version': SCHEMA_VERSION };
      const good = (i: number) => ({ key, value: JSON.stringify(triplet(i)), headers: h });
      const bad = [
        { key, value: '{"id":"trunc', headers: h },
        { key, value: Buffer.alloc(2 * 1024 * 1024, 0x61), headers: h },
        { key, value: JSON.stringify(triplet(99)), headers: { 'schema-version': '999' } },
        { key, value: JSON.stringify({ ...triplet(98), sampling: { weight: -1 } }), headers: h },
      ];
      await raw.send({ topic: section.topics.triplets, acks: -1, messages: [good(1), ...bad, good(2)] });

      const handled: string[] = [];
      await runConsumer(section, instruments, async (t) => {
        handled.push(t.query);
        instruments.scored.inc({ judge: 'embedded' });
        instruments.inFlight.dec();
        return { status: 'scored' };
      });
      const dlq = await readTopic(broker.brokers, section.topics.dlq, 4);
      await waitFor(() => handled.length >= 2, 10_000);
      expect(handled).toEqual(['question 1', 'question 2']);
      const byReason = new Map(dlq.map((m) => [headerOf(m.headers, 'reason'), m]));
      expect([...byReason.keys()].sort()).toEqual(['bad_json', 'schema_invalid', 'schema_version', 'too_large']);
      for (const m of dlq) {
        expect(headerOf(m.headers, 'error')).toBeTruthy();
        expect(['decode', 'validate']).toContain(headerOf(m.headers, 'stage'));
        expect(headerOf(m.headers, 'original-topic')).toBe(section.topics.triplets);
        expect(headerOf(m.headers, 'attempts')).toBe('1');
      }
      expect(String(byReason.get('bad_json')!.value)).toBe('{"id":"trunc');
      expect(headerOf(byReason.get('too_large')!.headers, 'truncated')).toBe('true');
      expect(headerOf(byReason.get('too_large')!.headers, 'original-size')).toBe(String(2 * 1024 * 1024));
      expect(headerOf(byReason.get('schema_version')!.headers, 'schema-version')).toBe('999');
      // Accounting: received = scored + failed + dropped + in_flight.
      await waitFor(async () => (await instruments.received.get()).values[0]?.value === 6, 5_000);
      const failed = (await instruments.failed.get()).values.reduce((a, v) => a + v.value, 0);
      expect(failed).toBe(4);
      expect((await instruments.inFlight.get()).values[0]?.value).toBe(0);
    });

    it('de-duplicates a redelivered triplet id and publishes each score once', async () => {
      const instruments = createInstruments({ processMetrics: false });
      const section = sectionFor(broker.brokers, `dedupe-${randomUUID().slice(0, 8)}`);
      const producer = new KafkaTripletProducer({ section, instruments });
      cleanups.push(() => producer.shutdown(500));
      const t = triplet(7);
      const t8 = triplet(8);
      for (const x of [t, t, t8]) {
        instruments.inFlight.inc();
        producer.send(x);
      }
      await producer.forceFlush();
      const calls: string[] = [];
      await runConsumer(section, instruments, async (x) => {
        calls.push(x.id);
        instruments.inFlight.dec();
        return {
          status: 'scored',
          record: { tripletId: x.id, traceId: x.traceId, service: x.service, stratum: 'all', weight: 1, timestamp: x.timestamp, judge: { kind: 'embedded' }, scores: {}, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 } },
        };
      });
      const scores = await readTopic(broker.brokers, section.topics.scores, 2);
      await waitFor(async () => (await instruments.deduplicated.get()).values[0]?.value === 1, 10_000);
      expect(calls.sort()).toEqual([t.id, t8.id].sort());
      expect(scores.map((m) => JSON.parse(String(m.value)).tripletId).sort()).toEqual(calls.sort());
    });

    it('publishes the companion judge record next to the score and next to a DLQ entry', async () => {
      const instruments = createInstruments({ processMetrics: false });
      const section = sectionFor(broker.brokers, `companion-${randomUUID().slice(0, 8)}`);
      const producer = new KafkaTripletProducer({ section, instruments });
      cleanups.push(() => producer.shutdown(500));
      const [ok, bad] = [triplet(11), triplet(12)];
      for (const x of [ok, bad]) {
        instruments.inFlight.inc();
        producer.send(x);
      }
      await producer.forceFlush();
      const recordOf = (x: SampledTriplet, kind: 'llm' | 'embedded') => ({ tripletId: x.id, traceId: x.traceId, service: x.service, stratum: 'all', weight: 1, timestamp: x.timestamp, judge: { kind }, scores: {}, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 } });
      await runConsumer(section, instruments, async (x) => {
        instruments.inFlight.dec();
        if (x.id === ok.id) return { status: 'scored', record: recordOf(x, 'llm'), companion: recordOf(x, 'embedded') };
        return { status: 'failed', reason: 'RAGWATCH_JUDGE_CIRCUIT_OPEN', attempts: 1, companion: recordOf(x, 'embedded') };
      });
      const scores = await readTopic(broker.brokers, section.topics.scores, 3);
      const dlq = await readTopic(broker.brokers, section.topics.dlq, 1);
      const published = scores.map((m) => { const r = JSON.parse(String(m.value)) as { tripletId: string; judge: { kind: string } }; return `${r.tripletId}/${r.judge.kind}`; });
      expect(published.sort()).toEqual([`${ok.id}/llm`, `${ok.id}/embedded`, `${bad.id}/embedded`].sort());
      expect(headerOf(dlq[0]!.headers, 'reason')).toBe('RAGWATCH_JUDGE_CIRCUIT_OPEN');
    });

    it('pauses the partition for retryAfterMs on judge back-pressure, then redelivers with attempt 2', async () => {
      const instruments = createInstruments({ processMetrics: false });
      const section = sectionFor(broker.brokers, `pause-${randomUUID().slice(0, 8)}`);
      const producer = new KafkaTripletProducer({ section, instruments });
      cleanups.push(() => producer.shutdown(500));
      instruments.inFlight.inc();
      producer.send(triplet(1));
      await producer.forceFlush();
      const attempts: Array<{ attempt: number; atMs: number }> = [];
      let pausedSeen = 0;
      await runConsumer(section, instruments, async (_t, ctx) => {
        attempts.push({ attempt: ctx?.attempt ?? 0, atMs: Date.now() });
        if ((ctx?.attempt ?? 1) === 1) {
          setTimeout(() => void instruments.kafkaPaused.get().then((g) => (pausedSeen = g.values[0]?.value ?? 0)), 200);
          return { status: 'retry', reason: 'RAGWATCH_JUDGE_RATE_LIMITED', retryAfterMs: 1_500 };
        }
        instruments.inFlight.dec();
        return { status: 'scored' };
      });
      await waitFor(() => attempts.length >= 2, 15_000);
      expect(attempts.map((a) => a.attempt)).toEqual([1, 2]);
      expect(attempts[1]!.atMs - attempts[0]!.atMs).toBeGreaterThanOrEqual(1_400);
      expect(pausedSeen).toBe(1);
    });
  });
});

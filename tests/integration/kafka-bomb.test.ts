/**
 * Decompression bombs on a real broker: a test producer (its own kafkajs, with codecs that hand the
 * broker a pre-made bomb) writes one-record batches that inflate to 256 MiB each — gzip, lz4 and zstd,
 * ~0.25 MB, ~1 MB and ~8 KB on the wire, accepted by the broker's own validation — between valid
 * triplets on one partition of the triplets topic a real `ragwatch scorer` process reads. The scorer
 * (transport.kafka.consumer.maxBatchBytes: its 64 MiB default) refuses each bomb without inflating it,
 * writes the record to the DLQ (reason batch_too_large, the key in the error), logs topic, partition,
 * offsets and key, counts ragwatch_kafka_refused_batches_total{codec,reason}, and goes on: the triplets
 * after the bombs are scored, lag drains to 0, the process stays up and its memory stays far below
 * one bomb.
 */
import { randomUUID } from 'node:crypto';
import { unzip } from 'node:zlib';
import { promisify } from 'node:util';
import kafkajs, { Kafka, logLevel, type IHeaders } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION, type SampledTriplet, type ScoreRecord } from '../../src/triplet.ts';
import { bombZeroBytes, compressionBomb } from '../helpers/compression-bombs.ts';
import { haveKafka, startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-broker.ts';
import { waitFor } from '../helpers/process.ts';
import { readTopic, roleConfig, scrape, startRole, type RoleProcess, type TopicReader } from './kafka-process.ts';

const enabled = haveKafka('tests/integration/kafka-bomb.test.ts');
const MiB = 1024 * 1024;
const { CompressionCodecs, CompressionTypes } = kafkajs;

function header(headers: IHeaders | undefined, name: string): string | undefined {
  const v = headers?.[name];
  return v === undefined ? undefined : String(Array.isArray(v) ? v[0] : v);
}

function triplet(query: string): SampledTriplet {
  const traceId = randomUUID().replaceAll('-', '');
  return {
    id: `id-${traceId}`,
    traceId,
    spanId: '00f067aa0ba902b7',
    service: 'rag',
    timestamp: new Date().toISOString(),
    query,
    sources: [{ content: 'The Eiffel Tower is 330 metres tall and stands in Paris.' }],
    response: 'The Eiffel Tower is 330 metres tall.',
    latency: { durationMs: 800 },
    convention: 'openinference',
    sampling: { weight: 1, stratum: 'all', rule: 'rate' },
  };
}

describe.skipIf(!enabled)('decompression bombs on a real broker: refused, DLQed, and the partition keeps flowing', () => {
  let broker: KafkaTestCluster;
  let scorer: RoleProcess | undefined;
  const readers: TopicReader[] = [];
  const saved = { ...CompressionCodecs };

  beforeAll(async () => {
    broker = await startKafkaCluster();
  }, 180_000);
  afterAll(async () => {
    Object.assign(CompressionCodecs, saved);
    for (const r of readers) await r.stop();
    await scorer?.cleanup();
    await broker?.stop();
  });

  it('scores the triplets around gzip, lz4 and zstd bombs of 256 MiB each; the bombs go to the DLQ', async () => {
    const zeros = bombZeroBytes(256 * MiB);
    const bombs = { gzip: await compressionBomb('gzip', zeros), lz4: await compressionBomb('lz4', zeros), zstd: await compressionBomb('zstd', zeros) };
    // This process's kafkajs writes the bomb for any batch of these codecs (one message each: the bomb's one record).
    const gunzip = promisify(unzip);
    CompressionCodecs[CompressionTypes.GZIP] = () => ({ compress: async () => bombs.gzip, decompress: (b: Buffer) => gunzip(b) });
    CompressionCodecs[CompressionTypes.LZ4] = () => ({ compress: async () => bombs.lz4, decompress: () => Promise.reject(new Error('not read here')) });
    CompressionCodecs[CompressionTypes.ZSTD] = () => ({ compress: async () => bombs.zstd, decompress: () => Promise.reject(new Error('not read here')) });

    const prefix = `bomb-${randomUUID().slice(0, 8)}`;
    const config = { ...roleConfig(broker.brokers, prefix), metrics: { processMetrics: true } };
    const topics = { triplets: `${prefix}.triplets.v1`, scores: `${prefix}.scores.v1`, dlq: `${prefix}.triplets.dlq` };
    // The lz4 bomb is ~1 MB on the wire: a topic that takes it (the broker's default stops at 1 MB).
    await broker.createTopic(topics.triplets, 4, { 'max.message.bytes': String(4 * MiB) });
    scorer = await startRole('scorer', config);
    const raw = new Kafka({ brokers: broker.brokers, logLevel: logLevel.NOTHING }).producer();
    await raw.connect();
    const key = 'one-key-one-partition';
    const h = { 'schema-version': SCHEMA_VERSION, 'content-type': 'application/json' };
    const valid = [triplet('How tall is the Eiffel Tower?'), triplet('Where is the Eiffel Tower?'), triplet('Who built the Eiffel Tower?'), triplet('When was it built?')];
    const send = (value: string, compression = CompressionTypes.None) => raw.send({ topic: topics.triplets, acks: -1, compression, messages: [{ key, value, headers: h }] });
    await send(JSON.stringify(valid[0]));
    await send('bomb', CompressionTypes.GZIP);
    await send(JSON.stringify(valid[1]));
    await send('bomb', CompressionTypes.LZ4);
    await send('bomb', CompressionTypes.ZSTD);
    await send(JSON.stringify(valid[2]));
    await send(JSON.stringify(valid[3]));
    await raw.disconnect();

    const dlq = await readTopic(broker.brokers, topics.dlq);
    const scores = await readTopic(broker.brokers, topics.scores);
    readers.push(dlq, scores);
    await waitFor(() => dlq.messages.length >= 3 && scores.messages.length >= 4, 60_000, 200);

    const scored = scores.messages.map((m) => (JSON.parse(String(m.value)) as ScoreRecord).tripletId);
    expect(scored.sort()).toEqual(valid.map((t) => t.id).sort());
    expect(dlq.messages).toHaveLength(3);
    const errors = dlq.messages.map((m) => header(m.headers, 'error') ?? '');
    for (const m of dlq.messages) {
      expect(header(m.headers, 'reason')).toBe('batch_too_large');
      expect(header(m.headers, 'stage')).toBe('decode');
      expect(header(m.headers, 'original-topic')).toBe(topics.triplets);
    }
    for (const codec of ['gzip', 'lz4', 'zstd']) {
      expect(errors.some((e) => new RegExp(`^${codec} record batch inflates past 67108864 bytes.*\\(transport\\.kafka\\.consumer\\.maxBatchBytes\\); the batch at offsets (\\d+)-\\1`).test(e)), codec).toBe(true);
    }
    // The DLQ keeps the compressed batch (the bomb as the broker stored it); one over the consumer's
    // maxMessageBytes (1 MiB: the lz4 one) is cut to half of it, marked truncated, as any DLQ entry.
    expect(dlq.messages.map((m) => m.value?.length ?? 0).sort((a, b) => a - b)).toEqual([bombs.zstd.length, bombs.gzip.length, 512 * 1024]);
    expect(dlq.messages.filter((m) => header(m.headers, 'truncated') === 'true').map((m) => header(m.headers, 'original-size'))).toEqual([String(bombs.lz4.length)]);

    for (const codec of ['gzip', 'lz4', 'zstd']) expect(await scrape(scorer.apiUrl, 'ragwatch_kafka_refused_batches_total', { codec, reason: 'batch_too_large' }), codec).toBe(1);
    expect(await scrape(scorer.apiUrl, 'ragwatch_dlq_messages_total', { stage: 'decode', reason: 'batch_too_large' })).toBe(3);
    await waitFor(async () => (await scrape(scorer!.apiUrl, 'ragwatch_kafka_consumer_lag_messages')) === 0, 15_000, 200);
    const logged = scorer.output().split('\n').filter((l) => l.includes('was not decompressed'));
    expect(logged).toHaveLength(3);
    for (const line of logged) {
      const rec = JSON.parse(line) as { topic: string; partition: number; offsets: string; err: string };
      expect(rec.topic).toBe(topics.triplets);
      expect(typeof rec.partition).toBe('number');
      expect(rec.offsets).toMatch(/^\d+-\d+$/);
      expect(rec.err).toMatch(/transport\.kafka\.consumer\.maxBatchBytes/);
    }
    expect(scorer.child.exitCode).toBeNull();
    expect((await fetch(`${scorer.apiUrl}/readyz`)).status).toBe(200);
    // 3 × 256 MiB never inflated: the scorer's resident memory stays far below even one bomb.
    expect(await scrape(scorer.apiUrl, 'ragwatch_process_resident_memory_bytes')).toBeLessThan(256 * MiB);
  }, 180_000);
});

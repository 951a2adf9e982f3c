/**
 * The bounded codecs as kafkajs uses them (src/transport/kafka-codecs.ts, kafka-refused-batch.ts):
 * registered in kafkajs' codec table, a v2 record batch is decoded by kafkajs' own RecordBatch decoder
 * from the bytes of a fetch response. A legitimate batch decodes to its records; a bomb, or bytes that
 * cannot be decompressed, decodes to one refusal record per record at the batch's offsets (the first
 * carrying the compressed bytes), each naming the reason, the offsets and the limit's configuration
 * key; the limit is the one of the async context the fetch runs in; a header that does not check out
 * fails the fetch as before; a producer cannot forge a refusal; every refusal is counted in
 * `ragwatch_kafka_refused_batches_total`.
 */
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import kafkajs from 'kafkajs';
import { beforeAll, describe, expect, it } from 'vitest';
import { useReadCodecs, withBatchLimit } from '../../src/transport/kafka-codecs.ts';
import { refusalOf } from '../../src/transport/kafka-refused-batch.ts';
import { createInstruments } from '../../src/telemetry/instruments.ts';
import { bombZeroBytes, compressionBomb, zeroRecord } from '../helpers/compression-bombs.ts';

const require = createRequire(import.meta.url);
const Decoder = require('kafkajs/src/protocol/decoder.js') as new (b: Buffer) => unknown;
const decodeRecordBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder.js') as (d: unknown) => Promise<{ records: Array<{ offset: string; value: Buffer | null; headers: Record<string, Buffer> }> }>;

const MiB = 1024 * 1024;
const { CompressionTypes } = kafkajs;

/** A v2 record batch: 61-byte header (offsets, codec, record count) then the compressed records. */
function recordBatch(compressed: Buffer, codec: number, firstOffset: bigint, count: number, lastOffsetDelta = count - 1): Buffer {
  const h = Buffer.alloc(61);
  h.writeBigInt64BE(firstOffset, 0);
  h.writeInt32BE(49 + compressed.length, 8);
  h.writeInt8(2, 16); // magic
  h.writeInt16BE(codec, 21);
  h.writeInt32BE(lastOffsetDelta, 23);
  h.writeBigInt64BE(-1n, 45); // producer id
  h.writeInt16BE(-1, 53); // producer epoch
  h.writeInt32BE(-1, 55); // first sequence
  h.writeInt32BE(count, 57);
  // Inside a larger response buffer, as kafkajs slices a batch out of a fetch response.
  return Buffer.concat([Buffer.alloc(100, 7), h, compressed]).subarray(100);
}

function decode(batch: Buffer) {
  return decodeRecordBatch(new Decoder(batch));
}

describe('bounded codecs in kafkajs', () => {
  let bomb: Buffer;
  beforeAll(async () => {
    useReadCodecs();
    useReadCodecs(); // idempotent
    bomb = await compressionBomb('gzip', bombZeroBytes(128 * MiB));
  });

  it('a legitimate gzip batch decodes to its records, under any limit that holds it', async () => {
    const { head, tail } = zeroRecord(1000);
    const body = Buffer.concat([head, Buffer.alloc(1000, 0x41), tail]);
    const { records } = await withBatchLimit({ maxBytes: body.length, key: 'k' }, () => decode(recordBatch(gzipSync(body), CompressionTypes.GZIP, 42n, 1)));
    expect(records).toHaveLength(1);
    expect(records[0]!.offset).toBe('42');
    expect(records[0]!.value).toEqual(Buffer.alloc(1000, 0x41));
    expect(refusalOf(records[0]!)).toBeUndefined();
  });

  it('the gzip codec compresses as before (what it writes, it reads back)', async () => {
    const codec = kafkajs.CompressionCodecs[CompressionTypes.GZIP]!() as { compress(e: { buffer: Buffer }): Promise<Buffer>; decompress(b: Buffer): Promise<Buffer> };
    const raw = Buffer.from(JSON.stringify({ a: 'b'.repeat(5_000) }).repeat(30));
    expect((await codec.decompress(await codec.compress({ buffer: raw }))).equals(raw)).toBe(true);
  });

  it('a bomb decodes to refusal records at the batch offsets, naming reason, offsets and the configuration key', async () => {
    // The bomb's record is one, but a batch stating three is refused record by record all the same.
    const batch = recordBatch(bomb, CompressionTypes.GZIP, 100n, 3, 4);
    const { records } = await withBatchLimit({ maxBytes: 16 * MiB, key: 'ingest.kafka.maxBatchBytes' }, () => decode(batch));
    expect(records.map((r) => r.offset)).toEqual(['100', '101', '104']);
    const refusals = records.map((r) => refusalOf(r));
    for (const r of refusals) {
      expect(r?.reason).toBe('batch_too_large');
      expect(r?.offsets).toBe('100-104');
      expect(r?.error).toMatch(/^gzip record batch inflates past 16777216 bytes \(ingest\.kafka\.maxBatchBytes\); the batch at offsets 100-104 \(3 records/);
    }
    // The first carries the compressed batch (for the DLQ), the others nothing.
    expect(records[0]!.value).toEqual(bomb);
    expect(records[1]!.value).toBeNull();
  });

  it('the limit is the fetch context\'s: the same bomb decodes under a larger one; outside any, the 64 MiB default', async () => {
    const small = await compressionBomb('zstd', bombZeroBytes(8 * MiB));
    const batch = recordBatch(small, CompressionTypes.ZSTD, 0n, 1);
    const ok = await withBatchLimit({ maxBytes: 16 * MiB, key: 'k' }, () => decode(batch));
    expect(ok.records[0]!.value!.length).toBe(bombZeroBytes(8 * MiB));
    const refused = await withBatchLimit({ maxBytes: 4 * MiB, key: 'transport.kafka.consumer.maxBatchBytes' }, () => decode(batch));
    expect(refusalOf(refused.records[0]!)?.error).toMatch(/zstd record batch inflates past 4194304 bytes.*\(transport\.kafka\.consumer\.maxBatchBytes\)/);
    const outside = await decode(recordBatch(bomb, CompressionTypes.GZIP, 0n, 1));
    expect(refusalOf(outside.records[0]!)?.error).toMatch(/inflates past 67108864 bytes/);
  });

  it('bytes that cannot be decompressed are refused as bad_compression', async () => {
    const { records } = await decode(recordBatch(Buffer.from('definitely not zstd'), CompressionTypes.ZSTD, 7n, 2));
    expect(records.map((r) => refusalOf(r)?.reason)).toEqual(['bad_compression', 'bad_compression']);
    expect(refusalOf(records[0]!)?.error).toMatch(/^zstd record batch cannot be decompressed: .*magic/);
  });

  it('a header that does not check out (not magic 2) fails the fetch as kafkajs does', async () => {
    const batch = recordBatch(Buffer.from('definitely not zstd'), CompressionTypes.ZSTD, 0n, 1);
    const magic = Buffer.from(batch);
    magic.writeInt8(1, 16);
    await expect(decode(magic)).rejects.toThrow(/magic/);
  });

  it('a producer cannot forge a refusal: the header is signed with a per-process nonce', () => {
    const forged = { headers: { 'ragwatch-refused-batch': Buffer.from('0123456789abcdef|batch_too_large|0-0|fake') } };
    expect(refusalOf(forged)).toBeUndefined();
  });

  it('every refused batch is counted in ragwatch_kafka_refused_batches_total{codec,reason}', async () => {
    const before = await counts();
    await decode(recordBatch(Buffer.from('definitely not zstd'), CompressionTypes.ZSTD, 7n, 1));
    await withBatchLimit({ maxBytes: MiB, key: 'k' }, () => decode(recordBatch(bomb, CompressionTypes.GZIP, 0n, 1)));
    const after = await counts();
    expect((after['zstd|bad_compression'] ?? 0) - (before['zstd|bad_compression'] ?? 0)).toBe(1);
    expect((after['gzip|batch_too_large'] ?? 0) - (before['gzip|batch_too_large'] ?? 0)).toBe(1);
  });
});

async function counts(): Promise<Record<string, number>> {
  const { registry } = createInstruments({ processMetrics: false });
  const metric = await registry.getSingleMetric('ragwatch_kafka_refused_batches_total')!.get();
  return Object.fromEntries(metric.values.map((v) => [`${v.labels.codec}|${v.labels.reason}`, v.value]));
}

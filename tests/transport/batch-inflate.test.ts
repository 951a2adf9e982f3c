/**
 * Bounded decompression of Kafka record batches (src/transport/batch-inflate.ts), codec by codec:
 * each gives back the bytes compressed by an independent implementation (zlib's gzip and zstd,
 * snappyjs' and lz4js' own compressors), malformed input throws an ordinary error, and a 1 GiB
 * decompression bomb made in the test with the codec's library is refused with BatchTooLargeError
 * while memory stays bounded: snappy, lz4 and zstd refuse from the sizes their headers state, before
 * allocating (array-buffer memory grows by less than 1 MiB); gzip stops inflating at the limit
 * (growth under the limit plus its last chunk). The real Collector's snappy, lz4 and zstd batches are
 * read in tests/integration/otlp-kafka.test.ts; a bomb on a real broker in
 * tests/integration/kafka-bomb.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { gzipSync, zstdCompressSync } from 'node:zlib';
import * as lz4 from 'lz4js';
import * as snappy from 'snappyjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { BatchTooLargeError, gunzipBatch, gunzipChunkBytes, unlz4, unsnappy, unzstdBatch } from '../../src/transport/batch-inflate.ts';
import { bombZeroBytes, compressionBomb, type BombCodec } from '../helpers/compression-bombs.ts';

const batch = Buffer.concat([Buffer.from('{"resourceSpans":[{"scopeSpans":[]}]}'.repeat(200)), randomBytes(3000)]);
const GiB = 1024 * 1024 * 1024;
const MiB = 1024 * 1024;
/** The limit the bombs meet. */
const LIMIT = 16 * MiB;

/** snappy-java's stream: magic, version 1 / compatible 1, then [uint32 length][raw snappy block] per chunk. */
function xerial(chunks: Buffer[]): Buffer {
  const header = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1]);
  const parts = chunks.flatMap((c) => {
    const block = Buffer.from(snappy.compress(c));
    const len = Buffer.alloc(4);
    len.writeUInt32BE(block.length);
    return [len, block];
  });
  return Buffer.concat([header, ...parts]);
}

const inflate: Record<BombCodec, (b: Buffer, max: number) => Buffer | Promise<Buffer>> = { gzip: gunzipBatch, snappy: unsnappy, lz4: unlz4, zstd: unzstdBatch };

describe('bounded record-batch codecs: legitimate batches', () => {
  it('gzip: inflates what zlib deflates, byte for byte, from tiny to larger than its first chunk; past the limit refused', async () => {
    const cases = [Buffer.from('x'), Buffer.from(JSON.stringify({ a: 'b'.repeat(5_000) }).repeat(300)), Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 7919) % 251))];
    for (const raw of cases) expect((await gunzipBatch(gzipSync(raw), 64 * MiB)).equals(raw)).toBe(true);
    // Exactly at the limit passes; one byte over is refused.
    expect((await gunzipBatch(gzipSync(batch), batch.length)).equals(batch)).toBe(true);
    await expect(gunzipBatch(gzipSync(batch), batch.length - 1)).rejects.toBeInstanceOf(BatchTooLargeError);
    await expect(gunzipBatch(Buffer.from('not gzip at all'), MiB)).rejects.toThrow(/header/);
  });

  it('gzip: sizes the output chunk from the compressed size, bounded', () => {
    expect(gunzipChunkBytes(10)).toBe(64 * 1024);
    expect(gunzipChunkBytes(13_583)).toBe(13_583 * 16);
    expect(gunzipChunkBytes(10 * 1024 * 1024)).toBe(4 * 1024 * 1024);
  });

  it('snappy: a raw block and a xerial stream of several blocks; at the limit passes, over it refused', () => {
    expect(unsnappy(Buffer.from(snappy.compress(batch)), MiB)).toEqual(batch);
    expect(unsnappy(xerial([batch.subarray(0, 5000), batch.subarray(5000)]), MiB)).toEqual(batch);
    expect(unsnappy(xerial([batch.subarray(0, 5000), batch.subarray(5000)]), batch.length)).toEqual(batch);
    expect(() => unsnappy(xerial([batch.subarray(0, 5000), batch.subarray(5000)]), batch.length - 1)).toThrow(BatchTooLargeError);
  });

  it('snappy: truncated or malformed input throws an ordinary error', () => {
    const framed = xerial([batch]);
    expect(() => unsnappy(framed.subarray(0, framed.length - 10), MiB)).toThrow(/truncated xerial snappy block/);
    expect(() => unsnappy(Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), MiB)).toThrow(/malformed snappy block length/);
  });

  it('lz4: an LZ4 frame; at the block bound passes; garbage and a truncated frame throw', () => {
    expect(unlz4(Buffer.from(lz4.compress(batch)), 4 * MiB)).toEqual(batch);
    expect(() => unlz4(Buffer.from('not an lz4 frame at all'), MiB)).toThrow(/magic/);
    const frame = Buffer.from(lz4.compress(batch));
    expect(() => unlz4(frame.subarray(0, frame.length - 8), MiB)).toThrow(/truncated|trailing/);
  });

  it('zstd: a frame from an independent compressor; garbage throws', () => {
    expect(unzstdBatch(zstdCompressSync(batch), MiB)).toEqual(batch);
    expect(() => unzstdBatch(Buffer.from('not a zstd frame'), MiB)).toThrow(/magic/);
  });
});

describe('bounded record-batch codecs: 1 GiB decompression bombs', () => {
  const bombs = new Map<BombCodec, Buffer>();
  beforeAll(async () => {
    const zeros = bombZeroBytes(GiB);
    for (const codec of ['gzip', 'snappy', 'lz4', 'zstd'] as const) bombs.set(codec, await compressionBomb(codec, zeros));
  }, 120_000);

  it('the bombs are small, and real: the same construction at 16 MiB inflates to exactly 16 MiB', async () => {
    expect(bombs.get('gzip')!.length).toBeLessThan(1.1 * MiB);
    expect(bombs.get('zstd')!.length).toBeLessThan(64 * 1024);
    expect(bombs.get('lz4')!.length).toBeLessThan(5 * MiB);
    expect(bombs.get('snappy')!.length).toBeLessThan(60 * MiB);
    // The same construction at 16 MiB inflates, by these bounded codecs with room, to exactly 16 MiB.
    const zeros = bombZeroBytes(16 * MiB);
    for (const codec of ['gzip', 'snappy', 'lz4', 'zstd'] as const) {
      const out = await inflate[codec](await compressionBomb(codec, zeros), 32 * MiB);
      expect(out.length, codec).toBe(16 * MiB);
    }
  });

  for (const codec of ['snappy', 'lz4', 'zstd'] as const) {
    it(`${codec}: refused from its headers before anything is allocated`, async () => {
      const before = process.memoryUsage().arrayBuffers;
      const started = performance.now();
      let err: unknown;
      try {
        await inflate[codec](bombs.get(codec)!, LIMIT);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(BatchTooLargeError);
      expect((err as Error).message).toMatch(new RegExp(`^${codec} record batch inflates past ${LIMIT} bytes`));
      expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(MiB);
      // Reading headers, not inflating 1 GiB (which takes seconds).
      expect(performance.now() - started).toBeLessThan(1_000);
    });
  }

  it('gzip: inflating stops at the limit; memory grows by less than the limit plus one chunk, never by the bomb', async () => {
    const before = process.memoryUsage();
    await expect(gunzipBatch(bombs.get('gzip')!, LIMIT)).rejects.toThrow(new RegExp(`^gzip record batch inflates past ${LIMIT} bytes`));
    const after = process.memoryUsage();
    // The limit plus one 4 MiB output chunk, exactly, when nothing else allocates; 1 MiB of slack for
    // what the worker allocates meanwhile (a clean-clone CI run measured the bound + 8 bytes).
    expect(after.arrayBuffers - before.arrayBuffers).toBeLessThan(LIMIT + 4 * MiB + MiB);
    expect(after.rss - before.rss).toBeLessThan(128 * MiB);
  });

  it('a raw snappy block stating 1 GiB is refused from its length alone', () => {
    // Varint 2^30, then the start of a block.
    expect(() => unsnappy(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x04, 0x00, 0x00]), LIMIT)).toThrow(BatchTooLargeError);
  });

  it('lz4: a block that lies about its size (a compressed block inflating past the frame block maximum) is malformed, not written past the bound', () => {
    // A frame stating 64 KiB blocks whose one block is a lz4js block of 4 MiB of zeros.
    const big = Buffer.from(lz4.compress(Buffer.alloc(4 * MiB)));
    const lying = Buffer.from(big);
    lying[5] = 0x40; // BD: 64 KiB blocks
    lying[6] = Buffer.from(lz4.compress(Buffer.alloc(1), 64 * 1024))[6]!; // its header checksum is not checked by lz4js
    expect(() => unlz4(lying, LIMIT)).toThrow(/corrupt LZ4 block|past the frame block maximum/);
  });
});

/**
 * The record-batch codecs kafkajs lacks (src/transport/kafka-codecs.ts): snappy raw and in the Java
 * client's xerial framing, LZ4 frames, zstd — each gives back the bytes compressed by an independent
 * implementation (snappyjs' and lz4js' own compressors, Node's zlib zstd); malformed batches throw
 * (kafkajs then fails the fetch, never passes garbage on), and a snappy block stating a huge size is
 * refused before anything is allocated. The real Collector's snappy, lz4 and zstd batches are read in
 * tests/integration/otlp-kafka.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { zstdCompressSync } from 'node:zlib';
import * as lz4 from 'lz4js';
import * as snappy from 'snappyjs';
import { describe, expect, it } from 'vitest';
import { unlz4, unsnappy, unzstdBatch } from '../../src/transport/kafka-codecs.ts';

const batch = Buffer.concat([Buffer.from('{"resourceSpans":[{"scopeSpans":[]}]}'.repeat(200)), randomBytes(3000)]);

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

describe('kafka read codecs', () => {
  it('snappy: a raw block and a xerial stream of several blocks', () => {
    expect(unsnappy(Buffer.from(snappy.compress(batch)))).toEqual(batch);
    expect(unsnappy(xerial([batch.subarray(0, 5000), batch.subarray(5000)]))).toEqual(batch);
  });

  it('snappy: truncated or malformed input throws; a block stating 1 GiB is refused up front', () => {
    const framed = xerial([batch]);
    expect(() => unsnappy(framed.subarray(0, framed.length - 10))).toThrow(/truncated xerial snappy block/);
    expect(() => unsnappy(Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x00]))).toThrow();
    // Varint 2^30: the uncompressed length a snappy block announces before its data.
    expect(() => unsnappy(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x04, 0x00, 0x01]))).toThrow(/too big/);
  });

  it('lz4: an LZ4 frame; garbage throws', () => {
    expect(unlz4(Buffer.from(lz4.compress(batch)))).toEqual(batch);
    expect(() => unlz4(Buffer.from('not an lz4 frame at all'))).toThrow(/magic/);
  });

  it('zstd: a frame from an independent compressor; garbage throws', () => {
    expect(unzstdBatch(zstdCompressSync(batch))).toEqual(batch);
    expect(() => unzstdBatch(Buffer.from('not a zstd frame'))).toThrow();
  });
});

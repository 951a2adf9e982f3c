/**
 * Kafka record-batch codecs kafkajs lacks — snappy, lz4 and zstd — so ragwatch can read topics other
 * producers compress with them (the Collector's kafka exporter: `producer.compression: snappy|lz4|zstd`,
 * written by franz-go). Pure JavaScript: snappyjs, lz4js (LZ4 frames, as Kafka's magic-v2 batches carry
 * them) and fzstd (decompression only: ragwatch never writes zstd). Snappy arrives raw (franz-go,
 * librdkafka) or in the Java client's xerial framing; both are read.
 * @module
 */
import kafkajs from 'kafkajs';
import { decompress as unzstd } from 'fzstd';
import * as lz4 from 'lz4js';
import * as snappy from 'snappyjs';

/** The xerial snappy-java stream header: magic (8 bytes), then a version pair (8 bytes), then `[uint32 length][block]…`. */
const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const XERIAL_HEADER_BYTES = 16;

/** Largest decompressed snappy block accepted, bytes (snappy states the size up front: a bomb is refused before allocating). */
const MAX_SNAPPY_BLOCK_BYTES = 256 * 1024 * 1024;

/** Decompresses a snappy record batch, raw or xerial-framed. Throws on a malformed one. */
export function unsnappy(buffer: Buffer): Buffer {
  if (buffer.length <= XERIAL_HEADER_BYTES || !buffer.subarray(0, XERIAL_MAGIC.length).equals(XERIAL_MAGIC)) {
    return Buffer.from(snappy.uncompress(buffer, MAX_SNAPPY_BLOCK_BYTES));
  }
  const blocks: Buffer[] = [];
  for (let pos = XERIAL_HEADER_BYTES; pos < buffer.length; ) {
    if (pos + 4 > buffer.length) throw new Error('truncated xerial snappy frame');
    const size = buffer.readUInt32BE(pos);
    pos += 4;
    if (pos + size > buffer.length) throw new Error('truncated xerial snappy block');
    blocks.push(Buffer.from(snappy.uncompress(buffer.subarray(pos, pos + size), MAX_SNAPPY_BLOCK_BYTES)));
    pos += size;
  }
  return Buffer.concat(blocks);
}

/** Decompresses an LZ4-frame record batch. */
export function unlz4(buffer: Buffer): Buffer {
  const out = lz4.decompress(buffer);
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

/** Decompresses a zstd record batch. */
export function unzstdBatch(buffer: Buffer): Buffer {
  const out = unzstd(buffer);
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

/**
 * Registers the three codecs in this isolate's kafkajs (its codec table is global to the module
 * instance). Called by ragwatch's own OTLP topic consumer, never by the in-process plugin. Idempotent.
 */
export function useReadCodecs(): void {
  const { CompressionCodecs, CompressionTypes } = kafkajs;
  CompressionCodecs[CompressionTypes.Snappy] = () => ({
    compress: async (encoder: { buffer: Buffer }) => Buffer.from(snappy.compress(encoder.buffer)),
    decompress: async (buffer: Buffer) => unsnappy(buffer),
  });
  CompressionCodecs[CompressionTypes.LZ4] = () => ({
    compress: async (encoder: { buffer: Buffer }) => Buffer.from(lz4.compress(encoder.buffer)),
    decompress: async (buffer: Buffer) => unlz4(buffer),
  });
  CompressionCodecs[CompressionTypes.ZSTD] = () => ({
    compress: () => Promise.reject(new Error('ragwatch reads zstd record batches; it does not write them')),
    decompress: async (buffer: Buffer) => unzstdBatch(buffer),
  });
}

/**
 * The record-batch codecs of ragwatch's own Kafka consumers, each bounded (`batch-inflate.ts`): gzip
 * (kafkajs' own, made to inflate a batch whole and stop at the limit) and those kafkajs lacks — snappy,
 * lz4 and zstd — so ragwatch reads topics other producers compress with them (the Collector's kafka
 * exporter: `producer.compression: snappy|lz4|zstd`, written by franz-go). Pure JavaScript besides
 * zlib: snappyjs (raw, or in the Java client's xerial framing), lz4js (LZ4 frames, as Kafka's magic-v2
 * batches carry them), fzstd (decompression only: ragwatch never writes zstd).
 *
 * A batch that would inflate past its consumer's limit, or cannot be decompressed at all, becomes
 * refusal records at its offsets (`kafka-refused-batch.ts`) that the consumer sends to its DLQ: the
 * consumer stays up and its partition moves on. The limit is the consuming group member's
 * (`maxBatchBytes`), carried to the codec through the async context of its fetches ({@link withBatchLimit}).
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import kafkajs from 'kafkajs';
import * as lz4 from 'lz4js';
import * as snappy from 'snappyjs';
import { BatchTooLargeError, gunzipBatch, unlz4, unsnappy, unzstdBatch } from './batch-inflate.ts';
import { refusalRecords } from './kafka-refused-batch.ts';
import { errorMessage } from '../errors.ts';

/** Limit of a batch decompressed outside any {@link withBatchLimit} (another consumer of this isolate's kafkajs), bytes. */
export const DEFAULT_MAX_BATCH_BYTES = 64 * 1024 * 1024;

const limit = new AsyncLocalStorage<number>();

/** Runs `start` (a consumer's connect and run) so that every batch its fetches decompress is bounded by `maxBatchBytes`. */
export function withBatchLimit<T>(maxBatchBytes: number, start: () => T): T {
  return limit.run(maxBatchBytes, start);
}

/** kafkajs' codec ids (the low three bits of a batch's attributes). */
const { CompressionTypes } = kafkajs;

/**
 * A bounded decompress for kafkajs: a batch over the limit or malformed comes back as refusal records
 * (or, when its header cannot be read safely, fails the fetch as kafkajs' own codecs do).
 */
function bounded(codec: string, id: number, inflate: (buffer: Buffer, maxBytes: number) => Buffer | Promise<Buffer>): (buffer: Buffer) => Promise<Buffer> {
  return async (buffer) => {
    const maxBytes = limit.getStore() ?? DEFAULT_MAX_BATCH_BYTES;
    try {
      return await inflate(buffer, maxBytes);
    } catch (err) {
      const tooLarge = err instanceof BatchTooLargeError;
      const refused = refusalRecords(buffer, id, tooLarge ? 'batch_too_large' : 'bad_compression', tooLarge ? err.message : `${codec} record batch cannot be decompressed: ${errorMessage(err)}`);
      if (refused) return refused;
      throw err;
    }
  };
}

const gzipAsync = promisify(gzip);

/**
 * Registers the four bounded codecs in this isolate's kafkajs (its codec table is global to the module
 * instance). Called when ragwatch's own consumers start (scorer, assembler, OTLP topics, score feeds),
 * never by the in-process plugin: the table is shared with the host's own kafkajs. Compression is
 * unchanged (kafkajs' gzip; snappy and lz4 by the same libraries; zstd is never written). Idempotent.
 */
export function useReadCodecs(): void {
  const { CompressionCodecs } = kafkajs;
  CompressionCodecs[CompressionTypes.GZIP] = () => ({
    compress: (encoder: { buffer: Buffer }) => gzipAsync(encoder.buffer),
    decompress: bounded('gzip', CompressionTypes.GZIP, gunzipBatch),
  });
  CompressionCodecs[CompressionTypes.Snappy] = () => ({
    compress: async (encoder: { buffer: Buffer }) => Buffer.from(snappy.compress(encoder.buffer)),
    decompress: bounded('snappy', CompressionTypes.Snappy, unsnappy),
  });
  CompressionCodecs[CompressionTypes.LZ4] = () => ({
    compress: async (encoder: { buffer: Buffer }) => Buffer.from(lz4.compress(encoder.buffer)),
    decompress: bounded('lz4', CompressionTypes.LZ4, unlz4),
  });
  CompressionCodecs[CompressionTypes.ZSTD] = () => ({
    compress: () => Promise.reject(new Error('ragwatch reads zstd record batches; it does not write them')),
    decompress: bounded('zstd', CompressionTypes.ZSTD, unzstdBatch),
  });
}

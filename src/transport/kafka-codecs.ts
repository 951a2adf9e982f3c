/**
 * The record-batch codecs of ragwatch's own Kafka consumers, each bounded (`batch-inflate.ts`): gzip
 * (kafkajs' own, made to inflate a batch whole and stop at the limit) and those kafkajs lacks — snappy,
 * lz4 and zstd — so ragwatch reads topics other producers compress with them (the Collector's kafka
 * exporter: `producer.compression: snappy|lz4|zstd`, written by franz-go). Pure JavaScript besides
 * zlib: snappyjs (raw, or in the Java client's xerial framing), lz4js (LZ4 frames, as Kafka's magic-v2
 * batches carry them), fzstd (decompression only: ragwatch never writes zstd).
 *
 * A batch that would inflate past its consumer's limit, or cannot be decompressed at all, becomes
 * refusal records at its offsets (`kafka-refused-batch.ts`) that the consumer sends to its DLQ or
 * skips: the consumer stays up and its partition moves on. The limit is the consuming member's
 * (`transport.kafka.consumer.maxBatchBytes`, `ingest.kafka.maxBatchBytes`), carried to the codec
 * through the async context of its fetches ({@link withBatchLimit}).
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import kafkajs from 'kafkajs';
import * as lz4 from 'lz4js';
import * as snappy from 'snappyjs';
import { BatchTooLargeError, gunzipBatch, unlz4, unsnappy, unzstdBatch } from './batch-inflate.ts';
import { refusalRecords, type BatchRefusal } from './kafka-refused-batch.ts';
import { errorMessage } from '../errors.ts';
import { countRefusedBatch } from '../telemetry/kafka-refusals.ts';

/** The decompression limit of one consumer, and the configuration key that sets it (named in every refusal). */
export interface BatchLimit {
  /** Largest record batch decompressed, bytes. */
  maxBytes: number;
  /** e.g. `transport.kafka.consumer.maxBatchBytes`. */
  key: string;
}

/** Limit of a batch decompressed outside any {@link withBatchLimit} (another consumer of this isolate's kafkajs). */
export const DEFAULT_BATCH_LIMIT: BatchLimit = { maxBytes: 64 * 1024 * 1024, key: 'transport.kafka.consumer.maxBatchBytes (default)' };

const limit = new AsyncLocalStorage<BatchLimit>();

/** Runs `start` (a consumer's connect and run) so that every batch its fetches decompress is bounded by `batchLimit`. */
export function withBatchLimit<T>(batchLimit: BatchLimit, start: () => T): T {
  return limit.run(batchLimit, start);
}

/** kafkajs' codec ids (the low three bits of a batch's attributes). */
const { CompressionTypes } = kafkajs;

/**
 * A bounded decompress for kafkajs: a batch over the limit or malformed comes back as refusal records
 * (or, when its header cannot be read safely, fails the fetch as kafkajs' own codecs do).
 */
function bounded(codec: string, id: number, inflate: (buffer: Buffer, maxBytes: number) => Buffer | Promise<Buffer>): (buffer: Buffer) => Promise<Buffer> {
  return async (buffer) => {
    const { maxBytes, key } = limit.getStore() ?? DEFAULT_BATCH_LIMIT;
    try {
      return await inflate(buffer, maxBytes);
    } catch (err) {
      const tooLarge = err instanceof BatchTooLargeError;
      const reason: BatchRefusal = tooLarge ? 'batch_too_large' : 'bad_compression';
      const error = tooLarge ? `${err.message} (${key})` : `${codec} record batch cannot be decompressed: ${errorMessage(err)}`;
      const refused = refusalRecords(buffer, id, reason, error);
      if (!refused) throw err;
      countRefusedBatch(codec, reason);
      return refused;
    }
  };
}

const gzipAsync = promisify(gzip);

/**
 * Registers the four bounded codecs in this isolate's kafkajs (its codec table is global to the module
 * instance). Called when ragwatch's own consumers start (scorer, assembler, OTLP topics, topic
 * broadcasts, score feeds), never by the in-process plugin: the table is shared with the host's own
 * kafkajs. Compression is unchanged (kafkajs' gzip; snappy and lz4 by the same libraries; zstd is
 * never written). Idempotent.
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

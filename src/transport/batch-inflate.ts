/**
 * Bounded decompression of Kafka record batches, one function per codec a topic may use. Each
 * refuses a batch that would inflate past `maxBytes` with {@link BatchTooLargeError} before it holds
 * more than that: gzip through zlib's own `maxOutputLength`; snappy by the length each block states up
 * front; LZ4 and zstd by an upper bound read from their frames' block headers (block sizes, the
 * block maximum, the window) before anything is decompressed — so a decompression bomb costs at most
 * `maxBytes` of memory, never the bomb's size. Malformed input throws an ordinary `Error`.
 * @module
 */
import { promisify } from 'node:util';
import { unzip } from 'node:zlib';
import { decompress as unzstd } from 'fzstd';
import * as lz4 from 'lz4js';
import * as snappy from 'snappyjs';

/** A record batch would inflate past the limit. */
export class BatchTooLargeError extends Error {
  constructor(codec: string, maxBytes: number, detail = '') {
    super(`${codec} record batch inflates past ${maxBytes} bytes${detail}`);
    this.name = 'BatchTooLargeError';
  }
}

const unzipAsync = promisify(unzip);

/** Output chunk of one inflate call: ~16× the compressed size (typical of JSON batches), 64 KiB to 4 MiB. */
export function gunzipChunkBytes(compressedBytes: number): number {
  return Math.min(4 * 1024 * 1024, Math.max(64 * 1024, compressedBytes * 16));
}

/**
 * Inflates a gzip batch in one or a few output chunks instead of zlib's default 16 KiB ones (0.70 →
 * 0.27 ms of CPU per 125-record batch, docs/performance.md), stopping at `maxBytes`.
 */
export async function gunzipBatch(buffer: Buffer, maxBytes: number): Promise<Buffer> {
  try {
    return await unzipAsync(buffer, { chunkSize: gunzipChunkBytes(buffer.length), maxOutputLength: maxBytes });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new BatchTooLargeError('gzip', maxBytes);
    throw err;
  }
}

/** The xerial snappy-java stream header: magic (8 bytes), then a version pair (8 bytes), then `[uint32 length][block]…`. */
const XERIAL_MAGIC = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00]);
const XERIAL_HEADER_BYTES = 16;

/** The uncompressed length a raw snappy block states (its leading varint). */
function snappyLength(block: Buffer): number {
  let value = 0;
  for (let i = 0, shift = 0; i < 5 && i < block.length; i++, shift += 7) {
    const byte = block[i]!;
    value += (byte & 0x7f) * 2 ** shift;
    if ((byte & 0x80) === 0) return value;
  }
  throw new Error('malformed snappy block length');
}

/** Decompresses a snappy record batch, raw or xerial-framed, at most `maxBytes` in all (every block's stated length is summed before any is inflated). */
export function unsnappy(buffer: Buffer, maxBytes: number): Buffer {
  if (buffer.length <= XERIAL_HEADER_BYTES || !buffer.subarray(0, XERIAL_MAGIC.length).equals(XERIAL_MAGIC)) {
    if (snappyLength(buffer) > maxBytes) throw new BatchTooLargeError('snappy', maxBytes);
    return Buffer.from(snappy.uncompress(buffer, maxBytes));
  }
  const blocks: Buffer[] = [];
  let total = 0;
  for (let pos = XERIAL_HEADER_BYTES; pos < buffer.length; ) {
    if (pos + 4 > buffer.length) throw new Error('truncated xerial snappy frame');
    const size = buffer.readUInt32BE(pos);
    pos += 4;
    if (pos + size > buffer.length) throw new Error('truncated xerial snappy block');
    const block = buffer.subarray(pos, pos + size);
    total += snappyLength(block);
    blocks.push(block);
    pos += size;
  }
  if (total > maxBytes) throw new BatchTooLargeError('snappy', maxBytes, ` (its blocks state ${total})`);
  return Buffer.concat(blocks.map((block) => snappy.uncompress(block, maxBytes)));
}

const LZ4_MAGIC = 0x184d2204;
const LZ4_BLOCK_MAX = [0, 0, 0, 0, 64 * 1024, 256 * 1024, 1024 * 1024, 4 * 1024 * 1024];

/** Upper bound of an LZ4 frame's output (uncompressed blocks by their size, compressed ones by the block maximum). */
function lz4Bound(src: Buffer): number {
  if (src.length < 7 || src.readUInt32LE(0) !== LZ4_MAGIC) throw new Error('not an LZ4 frame (invalid magic number)');
  const flg = src[4]!;
  if (flg >> 6 !== 1) throw new Error(`unsupported LZ4 frame version ${flg >> 6}`);
  if (flg & 1) throw new Error('LZ4 frame with a dictionary id: unsupported');
  const blockMax = LZ4_BLOCK_MAX[(src[5]! >> 4) & 7]!;
  if (blockMax === 0) throw new Error('invalid LZ4 block maximum size');
  const blockChecksum = (flg & 0x10) !== 0;
  let pos = 6 + (flg & 0x08 ? 8 : 0) + 1;
  let bound = 0;
  for (;;) {
    if (pos + 4 > src.length) throw new Error('truncated LZ4 frame');
    const word = src.readUInt32LE(pos);
    pos += 4;
    if (word === 0) break;
    const size = word & 0x7fffffff;
    bound += word & 0x80000000 ? size : blockMax;
    pos += size + (blockChecksum ? 4 : 0);
  }
  if (pos + (flg & 0x04 ? 4 : 0) !== src.length) throw new Error('trailing data after the LZ4 frame');
  return bound;
}

/** Decompresses an LZ4-frame record batch (one frame, as Kafka writes), at most `maxBytes`. */
export function unlz4(buffer: Buffer, maxBytes: number): Buffer {
  const bound = lz4Bound(buffer);
  if (bound > maxBytes) throw new BatchTooLargeError('lz4', maxBytes, ` (its blocks allow ${bound})`);
  const dst = new Uint8Array(bound);
  const size = lz4.decompressFrame(buffer, dst);
  // A block that decodes past its maximum is corrupt (the typed array dropped what did not fit).
  if (size > bound) throw new Error('corrupt LZ4 block: inflates past the frame block maximum');
  return Buffer.from(dst.buffer, dst.byteOffset, size);
}

const ZSTD_MAGIC = 0xfd2fb528;
/** A zstd block never regenerates more than this (RFC 8878 Block_Maximum_Size). */
const ZSTD_BLOCK_MAX = 128 * 1024;

/**
 * Upper bound of the output of zstd frames, and of what fzstd allocates for each (its window, or the
 * stated content size), from the frame and block headers (RFC 8878 §3.1).
 */
function zstdBound(src: Buffer): { total: number; largestFrame: number } {
  let pos = 0;
  let total = 0;
  let largestFrame = 0;
  while (pos < src.length) {
    if (pos + 4 > src.length) throw new Error('truncated zstd frame');
    const magic = src.readUInt32LE(pos);
    if ((magic & 0xfffffff0) === 0x184d2a50) {
      if (pos + 8 > src.length) throw new Error('truncated skippable zstd frame');
      pos += 8 + src.readUInt32LE(pos + 4);
      continue;
    }
    if (magic !== ZSTD_MAGIC) throw new Error('not a zstd frame (invalid magic number)');
    const fhd = src[pos + 4];
    if (fhd === undefined) throw new Error('truncated zstd frame header');
    const singleSegment = (fhd >> 5) & 1;
    const fcsFlag = fhd >> 6;
    if (fhd & 0x08) throw new Error('zstd frame header reserved bit set');
    pos += 5;
    let window = 0;
    if (!singleSegment) {
      const wd = src[pos++]!;
      const base = 2 ** (10 + (wd >> 3));
      window = base + (base / 8) * (wd & 7);
    }
    pos += [0, 1, 2, 4][fhd & 3]!;
    const fcsBytes = fcsFlag === 0 ? singleSegment : 2 ** fcsFlag;
    let contentSize = 0;
    for (let i = 0; i < fcsBytes; i++) contentSize += (src[pos + i] ?? 0) * 2 ** (8 * i);
    if (fcsFlag === 1) contentSize += 256;
    pos += fcsBytes;
    if (singleSegment) window = contentSize;
    largestFrame = Math.max(largestFrame, contentSize || window);
    const blockMax = Math.min(window, ZSTD_BLOCK_MAX);
    for (let last = 0; !last; ) {
      if (pos + 3 > src.length) throw new Error('truncated zstd block');
      const header = src[pos]! | (src[pos + 1]! << 8) | (src[pos + 2]! << 16);
      pos += 3;
      last = header & 1;
      const type = (header >> 1) & 3;
      const size = header >>> 3;
      if (type === 3) throw new Error('reserved zstd block type');
      total += type === 2 ? blockMax : size;
      pos += type === 1 ? 1 : size;
    }
    if (fhd & 0x04) pos += 4;
    if (pos > src.length) throw new Error('truncated zstd frame');
  }
  return { total, largestFrame };
}

/** Decompresses a zstd record batch (one or more frames), at most `maxBytes`. */
export function unzstdBatch(buffer: Buffer, maxBytes: number): Buffer {
  const { total, largestFrame } = zstdBound(buffer);
  if (total > maxBytes || largestFrame > maxBytes) throw new BatchTooLargeError('zstd', maxBytes, ` (its blocks allow ${total}, its window ${largestFrame})`);
  const out = unzstd(buffer);
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}

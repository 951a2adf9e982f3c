/**
 * Decompression bombs made in the test, one per Kafka codec: a record-batch body (one v2 record whose
 * value is `zeroBytes` zeros, so a broker validating the batch accepts it) compressed by the codecs'
 * own libraries — zlib's gzip and zstd streaming (never the whole input in memory), lz4js and
 * snappyjs blocks of 4 MiB repeated inside a frame (each block as its compressor wrote it). 1 GiB of
 * zeros is ~1 MB gzip (≈ 3 s), 32 KB zstd, 4 MB lz4, 50 MB snappy (its ratio tops at ~21:1).
 */
import { createGzip, createZstdCompress, type Gzip, type ZstdCompress } from 'node:zlib';
import { createRequire } from 'node:module';
import * as lz4 from 'lz4js';
import * as snappy from 'snappyjs';

/** lz4js' xxHash32 (untyped): `hash(seed, bytes, index, length)`. */
const xxh32 = createRequire(import.meta.url)('lz4js/xxh32.js') as { hash(seed: number, src: Uint8Array, index: number, length: number): number };

/** The codecs a bomb can be made with. */
export type BombCodec = 'gzip' | 'snappy' | 'lz4' | 'zstd';

/** Kafka's zigzag varint. */
function varint(n: number): Buffer {
  let z = n >= 0 ? n * 2 : -n * 2 - 1;
  const bytes: number[] = [];
  do {
    let byte = z % 128;
    z = Math.floor(z / 128);
    if (z !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (z !== 0);
  return Buffer.from(bytes);
}

/** The bytes of one v2 record around its `zeroBytes` value: what comes before the zeros and after. */
export function zeroRecord(zeroBytes: number): { head: Buffer; tail: Buffer } {
  // attributes, timestamp delta, offset delta, key (null), value length … headers (none)
  const body = Buffer.concat([Buffer.from([0]), varint(0), varint(0), varint(-1), varint(zeroBytes)]);
  const tail = varint(0);
  return { head: Buffer.concat([varint(body.length + zeroBytes + tail.length), body]), tail };
}

const BLOCK = 4 * 1024 * 1024;

/** Streams head, `zeroBytes` zeros and tail through a zlib compressor. */
async function stream(z: Gzip | ZstdCompress, head: Buffer, zeroBytes: number, tail: Buffer): Promise<Buffer> {
  const out: Buffer[] = [];
  z.on('data', (d: Buffer) => out.push(d));
  const done = new Promise((resolve, reject) => z.on('end', resolve).on('error', reject));
  const zeros = Buffer.alloc(BLOCK);
  const write = async (b: Buffer) => void (z.write(b) || (await new Promise((r) => z.once('drain', r))));
  await write(head);
  for (let left = zeroBytes; left > 0; left -= BLOCK) await write(left >= BLOCK ? zeros : zeros.subarray(0, left));
  await write(tail);
  z.end();
  await done;
  return Buffer.concat(out);
}

/** The 4 MiB pieces of head + zeros + tail: first, middle (all zeros, repeated `count` times), last. */
function pieces(head: Buffer, zeroBytes: number, tail: Buffer): { first: Buffer; middle: { piece: Buffer; count: number }; last: Buffer } {
  const total = head.length + zeroBytes + tail.length;
  if (total < 2 * BLOCK || total % BLOCK !== 0) throw new Error('bomb size: head + zeros + tail must be a multiple of 4 MiB, at least 8 MiB');
  const first = Buffer.concat([head, Buffer.alloc(BLOCK - head.length)]);
  const last = Buffer.concat([Buffer.alloc(BLOCK - tail.length), tail]);
  return { first, middle: { piece: Buffer.alloc(BLOCK), count: total / BLOCK - 2 }, last };
}

/** The single block of an lz4js frame of one 4 MiB input (its 4-byte size word included). */
function lz4Block(input: Buffer): Buffer {
  const frame = Buffer.from(lz4.compress(input));
  // magic (4), FLG, BD, HC; lz4js writes neither content size nor checksums.
  const size = frame.readUInt32LE(7) & 0x7fffffff;
  return frame.subarray(7, 11 + size);
}

/** A xerial snappy-java block: [uint32 length][raw snappy]. */
function xerialBlock(input: Buffer): Buffer {
  const block = Buffer.from(snappy.compress(input));
  const len = Buffer.alloc(4);
  len.writeUInt32BE(block.length);
  return Buffer.concat([len, block]);
}

/**
 * A record-batch body (one record, `zeroBytes` zeros as its value) compressed with `codec`: what
 * a producer's codec returns for a batch of one message. For snappy and lz4, head + zeros + tail must
 * be a multiple of 4 MiB (see {@link bombZeroBytes}).
 */
export async function compressionBomb(codec: BombCodec, zeroBytes: number): Promise<Buffer> {
  const { head, tail } = zeroRecord(zeroBytes);
  if (codec === 'gzip') return stream(createGzip({ level: 9 }), head, zeroBytes, tail);
  if (codec === 'zstd') return stream(createZstdCompress(), head, zeroBytes, tail);
  const { first, middle, last } = pieces(head, zeroBytes, tail);
  if (codec === 'lz4') {
    // FLG: version 1, independent blocks (each block below is compressed on its own; Kafka's Java
    // client refuses dependent ones); BD: 4 MiB blocks; HC: the second byte of xxh32 of FLG and BD.
    const header = Buffer.from([0x04, 0x22, 0x4d, 0x18, 0x60, 0x70, 0]);
    header[6] = (xxh32.hash(0, header, 4, 2) >>> 8) & 0xff;
    const zero = lz4Block(middle.piece);
    return Buffer.concat([header, lz4Block(first), ...Array<Buffer>(middle.count).fill(zero), lz4Block(last), Buffer.alloc(4)]);
  }
  const header = Buffer.from([0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1]);
  const zero = xerialBlock(middle.piece);
  return Buffer.concat([header, xerialBlock(first), ...Array<Buffer>(middle.count).fill(zero), xerialBlock(last)]);
}

/** The value size that makes a one-record batch body exactly `totalBytes` (a multiple of 4 MiB) once inflated. */
export function bombZeroBytes(totalBytes: number): number {
  // The head's varints grow with the size: settle on the size whose head + tail fill the total exactly.
  let zeros = totalBytes;
  for (let i = 0; i < 4; i++) {
    const { head, tail } = zeroRecord(zeros);
    zeros = totalBytes - head.length - tail.length;
  }
  return zeros;
}

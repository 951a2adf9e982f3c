/**
 * A record batch that cannot be decompressed — it would inflate past the limit (a decompression bomb)
 * or its compressed bytes are malformed — must neither crash the consumer nor stall its partition: a
 * fetch that fails to decode is retried by kafkajs, the consumer crashes and rejoins at the same offset,
 * forever. So the codec hands kafkajs, instead of the batch's records, one *refusal record* per record
 * the batch holds, at the batch's offsets: every consumer then writes each to its DLQ with the reason and
 * commits past the batch like past any poison message. The first carries the batch's compressed bytes
 * (for the DLQ); each carries a header naming why, signed with a per-process nonce so no producer can
 * forge one.
 *
 * The codec sees only the compressed bytes; the record count and offsets come from the batch header
 * just before them in the fetch response (kafkajs decodes a batch from slices of one buffer). The header
 * is read only when it checks out — its length field matches, magic 2, the codec bits are this codec's —
 * otherwise the codec fails as before.
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { IHeaders } from 'kafkajs';

/** Header of a refusal record: `<nonce>|<reason>|<first offset>-<last offset>|<error>`. */
const REFUSED_HEADER = 'ragwatch-refused-batch';
const NONCE = randomBytes(8).toString('hex');

/** Why a batch was refused: the DLQ `reason`. */
export type BatchRefusal = 'batch_too_large' | 'bad_compression';

/** Most records a refused batch may state (a producer's batch holds far fewer; more means a forged header). */
export const MAX_REFUSED_RECORDS = 100_000;

/** Bytes of a v2 record batch header between its first offset and its records. */
const HEADER_BYTES = 61;
/** Bytes the batch `length` field counts besides the records (from the leader epoch on). */
const LENGTH_OVERHEAD = 49;

/** The batch header fields a refusal needs, when the bytes before `records` are its header. */
function batchHeaderOf(records: Buffer, codecId: number): { firstOffset: bigint; lastOffsetDelta: number; count: number } | undefined {
  if (records.byteOffset < HEADER_BYTES) return undefined;
  const header = Buffer.from(records.buffer, records.byteOffset - HEADER_BYTES, HEADER_BYTES);
  if (header.readInt32BE(8) !== records.length + LENGTH_OVERHEAD || header.readInt8(16) !== 2 || (header.readInt16BE(21) & 7) !== codecId) return undefined;
  const lastOffsetDelta = header.readInt32BE(23);
  const count = header.readInt32BE(57);
  if (count < 1 || count > MAX_REFUSED_RECORDS || lastOffsetDelta < count - 1) return undefined;
  return { firstOffset: header.readBigInt64BE(0), lastOffsetDelta, count };
}

/** Kafka's zigzag varint. */
function varint(n: number): Buffer {
  let z = (n << 1) ^ (n >> 31);
  const bytes: number[] = [];
  do {
    let byte = z & 0x7f;
    z >>>= 7;
    if (z !== 0) byte |= 0x80;
    bytes.push(byte);
  } while (z !== 0);
  return Buffer.from(bytes);
}

/** One v2 record: no key, `value` (null: none), one header. */
function record(offsetDelta: number, value: Buffer | null, headerValue: Buffer): Buffer {
  const body = Buffer.concat([
    Buffer.from([0]), // attributes
    varint(0), // timestamp delta
    varint(offsetDelta),
    varint(-1), // key: null
    value === null ? varint(-1) : Buffer.concat([varint(value.length), value]),
    varint(1),
    varint(REFUSED_HEADER.length),
    Buffer.from(REFUSED_HEADER),
    varint(headerValue.length),
    headerValue,
  ]);
  return Buffer.concat([varint(body.length), body]);
}

/**
 * The records kafkajs should decode in place of a refused batch (as if decompressed), or undefined
 * when the batch header cannot be read safely.
 */
export function refusalRecords(records: Buffer, codecId: number, reason: BatchRefusal, error: string): Buffer | undefined {
  const header = batchHeaderOf(records, codecId);
  if (!header) return undefined;
  const { firstOffset, lastOffsetDelta, count } = header;
  const offsets = `${firstOffset}-${firstOffset + BigInt(lastOffsetDelta)}`;
  const detail = `${error}; the batch at offsets ${offsets} (${count} records, ${records.length} compressed bytes, kept on the entry of offset ${firstOffset})`;
  const headerValue = Buffer.from(`${NONCE}|${reason}|${offsets}|${detail}`);
  // The last refusal takes the batch's last offset, so a commit past it passes the whole batch.
  const out: Buffer[] = [];
  for (let i = 0; i < count; i++) out.push(record(i === count - 1 ? lastOffsetDelta : i, i === 0 ? records : null, headerValue));
  return Buffer.concat(out);
}

/** What a refusal record says: why, the batch's offsets (`first-last`), and the error to log and put in the DLQ. */
export interface Refusal {
  reason: BatchRefusal;
  offsets: string;
  error: string;
}

/** Why a consumed message is the refusal of its batch, or undefined for an ordinary message. */
export function refusalOf(message: { headers?: IHeaders }): Refusal | undefined {
  const raw = message.headers?.[REFUSED_HEADER];
  if (raw === undefined) return undefined;
  const value = (Array.isArray(raw) ? raw[0] : raw)?.toString();
  if (value === undefined) return undefined;
  const [nonce, reason, offsets, ...rest] = value.split('|');
  if (nonce !== NONCE || (reason !== 'batch_too_large' && reason !== 'bad_compression') || offsets === undefined) return undefined;
  return { reason, offsets, error: rest.join('|') };
}

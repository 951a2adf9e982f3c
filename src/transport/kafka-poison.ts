/**
 * Safe decoding of triplet messages and the DLQ entries for those that cannot be scored. Pure
 * functions: size check → `schema-version` header → JSON → zod schema; never throws.
 * @module
 */
import type { IHeaders, KafkaMessage, Message } from 'kafkajs';
import { errorMessage } from '../errors.ts';
import { refusalOf } from './kafka-refused-batch.ts';
import { READABLE_SCHEMA_VERSIONS, SCHEMA_VERSION, sampledTripletSchema, type SampledTriplet } from '../triplet.ts';

/** Where a poison message was rejected. */
export type PoisonStage = 'decode' | 'validate';

/** A decoded triplet, or why the message is poison. */
export type DecodeResult = { ok: true; triplet: SampledTriplet } | { ok: false; stage: PoisonStage; reason: string; error: string };

/** Longest text put in the `error` header, characters. */
const MAX_ERROR_CHARS = 500;

/** First value of a header as a string. */
export function headerValue(headers: IHeaders | undefined, name: string): string | undefined {
  const v = headers?.[name];
  if (v === undefined) return undefined;
  const first = Array.isArray(v) ? v[0] : v;
  return first === undefined ? undefined : first.toString();
}

/**
 * Decodes one triplet message.
 * @param maxBytes largest accepted value, bytes.
 */
export function decodeTriplet(message: KafkaMessage, maxBytes: number): DecodeResult {
  // A record of a batch the codec refused (a decompression bomb, or malformed).
  const refused = refusalOf(message);
  if (refused) return { ok: false, stage: 'decode', reason: refused.reason, error: refused.error };
  const value = message.value;
  if (!value || value.length === 0) return { ok: false, stage: 'decode', reason: 'empty_value', error: 'message has no value' };
  if (value.length > maxBytes) return { ok: false, stage: 'decode', reason: 'too_large', error: `value is ${value.length} bytes, limit ${maxBytes}` };
  const version = headerValue(message.headers, 'schema-version');
  // Records of every version this build reads are accepted (version 1 has no conversation).
  if (version === undefined || !READABLE_SCHEMA_VERSIONS.includes(version)) {
    return { ok: false, stage: 'validate', reason: 'schema_version', error: `schema-version ${version === undefined ? 'missing' : JSON.stringify(version.slice(0, 20))}, expected one of ${READABLE_SCHEMA_VERSIONS.join(', ')} (this build writes ${SCHEMA_VERSION})` };
  }
  let json: unknown;
  try {
    json = JSON.parse(value.toString('utf8'));
  } catch (err) {
    return { ok: false, stage: 'decode', reason: 'bad_json', error: errorMessage(err) };
  }
  const result = sampledTripletSchema.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0];
    return { ok: false, stage: 'validate', reason: 'schema_invalid', error: issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid' };
  }
  return { ok: true, triplet: result.data };
}

/** What a DLQ entry records about the original message. */
export interface DlqEntry {
  topic: string;
  partition: number;
  message: KafkaMessage;
  /** `decode`, `validate` or `judge`. */
  stage: string;
  reason: string;
  /** Human-readable cause (never payload text); cut to 500 characters. */
  error: string;
  attempts: number;
  /** Largest value the consumer accepts, bytes; bigger originals are cut to half of it. */
  maxBytes: number;
}

/** The DLQ message: original key and bytes plus `error`, `stage`, `reason`, `attempts` and origin headers. */
export function dlqMessage(entry: DlqEntry): Message {
  const { message, maxBytes } = entry;
  const value = message.value ?? null;
  // An oversized original would be refused by the broker too: keep its head so the DLQ write cannot stall the partition.
  const truncated = value !== null && value.length > maxBytes;
  const headers: IHeaders = {
    error: entry.error.slice(0, MAX_ERROR_CHARS),
    stage: entry.stage,
    reason: entry.reason,
    attempts: String(entry.attempts),
    'original-topic': entry.topic,
    'original-partition': String(entry.partition),
    'original-offset': message.offset,
    'original-size': String(value?.length ?? 0),
  };
  const version = headerValue(message.headers, 'schema-version');
  if (version !== undefined) headers['schema-version'] = version.slice(0, 20);
  if (truncated) headers.truncated = 'true';
  return { key: message.key ?? null, value: truncated ? value.subarray(0, Math.floor(maxBytes / 2)) : value, headers };
}

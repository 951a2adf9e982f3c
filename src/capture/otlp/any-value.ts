/**
 * OTLP AnyValue / KeyValue decoding shared by the JSON and protobuf paths, with a nesting-depth
 * limit (hostile input) and int64 accepted as string or number.
 * @module
 */
import { OtlpDecodeError } from '../../errors.ts';
import type { AttrValue, Attributes } from '../types.ts';

/** Deepest array/kvlist nesting accepted inside one attribute value. */
export const MAX_VALUE_DEPTH = 32;

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads a field by its lowerCamelCase or snake_case name (both are valid OTLP/JSON). */
export function field(obj: Obj, camel: string, snake?: string): unknown {
  const v = obj[camel];
  return v !== undefined ? v : snake !== undefined ? obj[snake] : undefined;
}

/** int64 as JSON number or decimal string (or a protobuf Long-like). */
export function toInt(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return Number(v);
  if (typeof v === 'bigint') return Number(v);
  if (isObj(v) && typeof v.toNumber === 'function') return (v as { toNumber(): number }).toNumber();
  return undefined;
}

/**
 * Whole microseconds of a decimal nanosecond string (all but its last three digits), or undefined
 * when it is not a non-empty run of ASCII digits. Same result as the BigInt path of
 * {@link nanosToMs} (the whole microseconds rounded to the nearest double).
 */
function wholeMicros(v: string): number | undefined {
  const n = v.length;
  if (n === 0) return undefined;
  let micros = 0;
  for (let i = 0; i < n; i++) {
    const c = v.charCodeAt(i);
    if (c < 48 || c > 57) return undefined;
    if (i < n - 3) micros = micros * 10 + (c - 48);
  }
  // Exact while every partial sum is a safe integer; past that, let Number() round correctly.
  return micros <= Number.MAX_SAFE_INTEGER ? micros : Number(v.slice(0, -3));
}

interface LongLike {
  low: number;
  high: number;
}

function isLong(v: unknown): v is LongLike {
  return isObj(v) && typeof v.low === 'number' && typeof v.high === 'number';
}

/** Largest epoch milliseconds a `Date` holds (±100,000,000 days). */
export const MAX_DATE_MS = 8.64e15;

/** `ms` when a `Date` can hold it, else undefined (an absurd timestamp is treated as missing). */
const inDateRange = (ms: number): number | undefined => (ms >= -MAX_DATE_MS && ms <= MAX_DATE_MS ? ms : undefined);

/**
 * Unix nanoseconds (decimal string, number, bigint or protobufjs Long) → epoch milliseconds,
 * truncated to whole microseconds so every encoding of the same instant gives the same number.
 * Undefined past the range of a `Date`.
 */
export function nanosToMs(v: unknown): number | undefined {
  if (typeof v === 'string') {
    const micros = wholeMicros(v);
    if (micros !== undefined) return inDateRange(micros / 1000);
  }
  let nanos: bigint;
  if (typeof v === 'bigint') nanos = v;
  else if (typeof v === 'number' && Number.isFinite(v)) nanos = BigInt(Math.trunc(v));
  else if (isLong(v)) nanos = (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0);
  else return undefined;
  return inDateRange(Number(nanos / 1000n) / 1000);
}

/**
 * Decodes one AnyValue. Reads lowerCamelCase members directly (parsed OTLP/JSON, and protobufjs
 * messages, whose unset oneof members read as `undefined`: see `protobuf.ts`), falling back to
 * the value's own keys for snake_case JSON. Throws OtlpDecodeError past {@link MAX_VALUE_DEPTH}.
 */
export function anyValue(v: unknown, depth = 0): AttrValue {
  if (depth > MAX_VALUE_DEPTH) throw new OtlpDecodeError(`attribute value nested deeper than ${MAX_VALUE_DEPTH} levels`);
  if (!isObj(v)) return null;
  const s = v.stringValue;
  if (typeof s === 'string') return s;
  if (v.intValue !== undefined) return member('intValue', v.intValue, depth) ?? null;
  if (v.doubleValue !== undefined) return member('doubleValue', v.doubleValue, depth) ?? null;
  if (v.boolValue !== undefined) return member('boolValue', v.boolValue, depth) ?? null;
  if (v.arrayValue !== undefined) return member('arrayValue', v.arrayValue, depth) ?? null;
  if (v.kvlistValue !== undefined) return member('kvlistValue', v.kvlistValue, depth) ?? null;
  if (v.bytesValue !== undefined) return member('bytesValue', v.bytesValue, depth) ?? null;
  for (const key of Object.keys(v)) {
    const value = member(key, v[key], depth);
    if (value !== undefined) return value;
  }
  return null;
}

/** One AnyValue member by name (either spelling); `undefined` for an unknown name. */
function member(key: string, x: unknown, depth: number): AttrValue | undefined {
  switch (key) {
    case 'stringValue':
    case 'string_value':
      return typeof x === 'string' ? x : null;
    case 'boolValue':
    case 'bool_value':
      return typeof x === 'boolean' ? x : null;
    case 'intValue':
    case 'int_value':
      return toInt(x) ?? null;
    case 'doubleValue':
    case 'double_value':
      return toDouble(x);
    case 'arrayValue':
    case 'array_value': {
      const values = isObj(x) ? x.values : undefined;
      return Array.isArray(values) ? values.map((e) => anyValue(e, depth + 1)) : [];
    }
    case 'kvlistValue':
    case 'kvlist_value':
      return isObj(x) ? keyValues(x.values, depth + 1) : {};
    case 'bytesValue':
    case 'bytes_value':
      if (typeof x === 'string') return x;
      return x instanceof Uint8Array ? Buffer.from(x.buffer, x.byteOffset, x.byteLength).toString('base64') : null;
    default:
      // A newer AnyValue member ragwatch does not know: skipped.
      return undefined;
  }
}

/** A double as JSON number or one of the OTLP/JSON special strings ("NaN", "Infinity", "-Infinity"). */
function toDouble(v: unknown): number | null {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isNaN(n) && v !== 'NaN' ? null : n;
  }
  return null;
}

/** Decodes a KeyValue list into a plain attribute map. */
export function keyValues(list: unknown, depth = 0): { [key: string]: AttrValue } {
  const out: { [key: string]: AttrValue } = {};
  if (!Array.isArray(list)) return out;
  for (const kv of list) {
    if (!isObj(kv) || typeof kv.key !== 'string') continue;
    const v = kv.value;
    // Most attributes are strings: skip the general decoder for them.
    const s = depth <= MAX_VALUE_DEPTH && isObj(v) ? v.stringValue : undefined;
    const value = typeof s === 'string' ? s : anyValue(v, depth);
    // A hostile "__proto__" key must become data, not the object's prototype.
    if (kv.key === '__proto__') Object.defineProperty(out, kv.key, { value, enumerable: true, writable: true, configurable: true });
    else out[kv.key] = value;
  }
  return out;
}

/** Attributes of an object that has an `attributes` KeyValue list. */
export function attributesOf(obj: unknown): Attributes {
  return isObj(obj) ? keyValues(obj.attributes) : {};
}

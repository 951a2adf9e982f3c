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

/** Unix nanoseconds (string, number, bigint or Long) → epoch milliseconds (µs precision). */
export function nanosToMs(v: unknown): number | undefined {
  if (typeof v === 'string' && /^\d+$/.test(v)) {
    const big = BigInt(v);
    return Number(big / 1000n) / 1000;
  }
  if (typeof v === 'bigint') return Number(v / 1000n) / 1000;
  const n = toInt(v);
  return n === undefined ? undefined : n / 1e6;
}

/** Decodes one AnyValue. Throws OtlpDecodeError past the depth limit. */
export function anyValue(v: unknown, depth = 0): AttrValue {
  if (depth > MAX_VALUE_DEPTH) throw new OtlpDecodeError(`attribute value nested deeper than ${MAX_VALUE_DEPTH} levels`);
  if (!isObj(v)) return null;
  const s = field(v, 'stringValue', 'string_value');
  if (typeof s === 'string') return s;
  const b = field(v, 'boolValue', 'bool_value');
  if (typeof b === 'boolean') return b;
  const i = field(v, 'intValue', 'int_value');
  if (i !== undefined && i !== null) return toInt(i) ?? null;
  const d = field(v, 'doubleValue', 'double_value');
  if (d !== undefined && d !== null) return typeof d === 'number' ? d : Number(d);
  const arr = field(v, 'arrayValue', 'array_value');
  if (isObj(arr)) {
    const values = arr.values;
    return Array.isArray(values) ? values.map((x) => anyValue(x, depth + 1)) : [];
  }
  const kv = field(v, 'kvlistValue', 'kvlist_value');
  if (isObj(kv)) return keyValues(kv.values, depth + 1);
  const bytes = field(v, 'bytesValue', 'bytes_value');
  if (typeof bytes === 'string') return bytes;
  if (bytes instanceof Uint8Array) return Buffer.from(bytes).toString('base64');
  return null;
}

/** Decodes a KeyValue list into a plain attribute map. */
export function keyValues(list: unknown, depth = 0): { [key: string]: AttrValue } {
  const out: { [key: string]: AttrValue } = {};
  if (!Array.isArray(list)) return out;
  for (const kv of list) {
    if (!isObj(kv) || typeof kv.key !== 'string') continue;
    out[kv.key] = anyValue(kv.value, depth);
  }
  return out;
}

/** Attributes of an object that has an `attributes` KeyValue list. */
export function attributesOf(obj: unknown): Attributes {
  return isObj(obj) ? keyValues(obj.attributes) : {};
}

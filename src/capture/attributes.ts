/**
 * Helpers to read typed values out of span attributes, tolerant of the shapes instrumentations
 * really emit (numbers as strings, JSON-encoded structures).
 * @module
 */
import type { AttrValue, Attributes } from './types.ts';

/** A string attribute, or undefined (numbers/booleans are stringified). */
export function str(attrs: Attributes, key: string): string | undefined {
  const v = attrs[key];
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/** A finite number attribute (numeric strings accepted), or undefined. */
export function num(attrs: Attributes, key: string): number | undefined {
  const v = attrs[key];
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** First defined string among keys (a priority chain). */
export function firstStr(attrs: Attributes, keys: readonly string[]): string | undefined {
  for (const k of keys) {
    const v = str(attrs, k);
    if (v !== undefined && v !== '') return v;
  }
  return undefined;
}

/** First defined number among keys (a priority chain). */
export function firstNum(attrs: Attributes, keys: readonly string[]): number | undefined {
  for (const k of keys) {
    const v = num(attrs, k);
    if (v !== undefined) return v;
  }
  return undefined;
}

/** Parses JSON without throwing; returns undefined for non-JSON text. */
export function tryJson(text: string): AttrValue | undefined {
  const t = text.trimStart();
  if (!(t.startsWith('{') || t.startsWith('['))) return undefined;
  try {
    return JSON.parse(text) as AttrValue;
  } catch {
    return undefined;
  }
}

/**
 * Collects flattened indexed attributes `<prefix>.<i>.<suffix>` into an array of
 * `{ suffix: value }` maps ordered by index (OpenInference / Traceloop flattening).
 */
export function indexed(attrs: Attributes, prefix: string): Array<Record<string, AttrValue>> {
  const byIndex = new Map<number, Record<string, AttrValue>>();
  const p = prefix + '.';
  for (const key in attrs) {
    if (!key.startsWith(p)) continue;
    const rest = key.slice(p.length);
    const dot = rest.indexOf('.');
    if (dot <= 0) continue;
    const idx = Number(rest.slice(0, dot));
    if (!Number.isInteger(idx) || idx < 0) continue;
    const value = attrs[key];
    if (value === undefined) continue;
    let entry = byIndex.get(idx);
    if (!entry) byIndex.set(idx, (entry = {}));
    entry[rest.slice(dot + 1)] = value;
  }
  return [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => v);
}

/** Flattens a JSON-ish metadata value into a string/number/boolean record (nested values JSON-encoded). */
export function flatMetadata(value: AttrValue | undefined): Record<string, string | number | boolean> | undefined {
  const obj = typeof value === 'string' ? tryJson(value) : value;
  if (!obj || typeof obj !== 'object' || Array.isArray(obj)) return undefined;
  const out: Record<string, string | number | boolean> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) out[k] = v;
    else if (v !== null && v !== undefined) out[k] = JSON.stringify(v);
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

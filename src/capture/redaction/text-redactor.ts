/**
 * Applies recognizers to text and hands out placeholders that stay consistent within one triplet.
 * @module
 */
import { createHmac } from 'node:crypto';
import type { ActiveRecognizer, Recognizer } from './types.ts';

/** Keyed pseudonymization for `hmac` mode and identifier attributes. */
export interface HmacKey {
  /** Short key id written into every token so a key rotation is visible. */
  id: string;
  secret: Buffer;
}

/** HMAC-SHA256 of `value` under `key`, as `<keyId>_<12 hex>` (48 bits: joinable, not reversible without the key). */
export function hmacToken(key: HmacKey, scope: string, value: string): string {
  return `${key.id}_${createHmac('sha256', key.secret).update(`${scope}\u0000${value}`).digest('hex').slice(0, 12)}`;
}

/**
 * Per-triplet placeholder book: the same (entity, normalized value) always maps to the same
 * placeholder, so the judge can still tell "the same e-mail" from "another e-mail".
 */
export class PlaceholderBook {
  readonly #key: HmacKey;
  // Created on the first placeholder: most triplets have nothing to replace.
  #byValue: Map<string, string> | undefined;
  #nextNumber: Map<string, number> | undefined;
  /** Occurrences replaced, by recognizer name. */
  readonly counts: Record<string, number> = {};

  constructor(key: HmacKey) {
    this.#key = key;
  }

  /** True once a placeholder has been handed out. */
  get replaced(): boolean {
    return this.#byValue !== undefined;
  }

  /** The placeholder for one occurrence of `value`. */
  placeholder(active: ActiveRecognizer, value: string): string {
    const r = active.recognizer;
    this.counts[r.name] = (this.counts[r.name] ?? 0) + 1;
    const normalized = r.normalize ? r.normalize(value) : value;
    const mapKey = `${r.entity}\u0000${normalized}`;
    const byValue = (this.#byValue ??= new Map());
    let ph = byValue.get(mapKey);
    if (ph === undefined) {
      if (active.mode === 'hmac') ph = `<${r.entity}_${hmacToken(this.#key, r.entity, normalized)}>`;
      else {
        const nextNumber = (this.#nextNumber ??= new Map());
        const n = (nextNumber.get(r.entity) ?? 0) + 1;
        nextNumber.set(r.entity, n);
        ph = `<${r.entity}_${n}>`;
      }
      byValue.set(mapKey, ph);
    }
    return ph;
  }
}

function applyPattern(text: string, pattern: RegExp, active: ActiveRecognizer, book: PlaceholderBook): string {
  const r: Recognizer = active.recognizer;
  let parts: string[] | undefined;
  let last = 0;
  pattern.lastIndex = 0;
  for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
    if (m[0].length === 0) {
      // A user pattern that matches the empty string must not loop forever.
      pattern.lastIndex++;
      continue;
    }
    const span = m.indices?.groups?.value ?? m.indices?.[0];
    if (!span || span[0] < last) continue;
    const [start, end] = span;
    const candidate = text.slice(start, end);
    const length = r.validate ? r.validate(candidate) : candidate.length;
    if (length <= 0) {
      // A rejected candidate may hide a valid one starting later (e.g. digits before a card number);
      // patterns with a validator are bounded, so retrying at the next position stays linear.
      pattern.lastIndex = m.index + 1;
      continue;
    }
    parts ??= [];
    parts.push(text.slice(last, start), book.placeholder(active, candidate.slice(0, length)));
    last = start + length;
    // Resume right after what was replaced (a validator may accept less than the candidate).
    if (pattern.lastIndex > last && last > m.index) pattern.lastIndex = last;
  }
  if (parts === undefined) return text;
  parts.push(text.slice(last));
  return parts.join('');
}

/** Replaces everything the recognizers find in `text`, in recognizer order. */
export function redactText(text: string, recognizers: readonly ActiveRecognizer[], book: PlaceholderBook): string {
  let out = text;
  for (const active of recognizers) {
    if (active.recognizer.mayContain && !active.recognizer.mayContain(out)) continue;
    for (const pattern of active.recognizer.patterns) out = applyPattern(out, pattern, active, book);
  }
  return out;
}

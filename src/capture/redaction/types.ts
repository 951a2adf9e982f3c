/**
 * Redaction contracts (DESIGN §6, §11 promise 8): PII is replaced by typed placeholders before a
 * triplet leaves capture. Everything here runs on the capture path: synchronous, linear-time,
 * no I/O, never throws into the caller.
 * @module
 */
import type { Triplet } from '../../triplet.ts';

/** How a recognized value is replaced. */
export type RedactionMode =
  /** `<EMAIL_1>`: numbered per triplet, the same value gets the same number within one triplet. */
  | 'placeholder'
  /** `<EMAIL_k1_9f86d081884c>`: keyed HMAC, the same value gets the same token across triplets (joinable). */
  | 'hmac';

/**
 * One kind of sensitive value. Every pattern must be linear-time on hostile input: bounded
 * quantifiers, no nested unbounded repetition, and a left-boundary lookbehind so a long run is
 * scanned from its start only.
 */
export interface Recognizer {
  /** Config key and `entity` label of `ragwatch_redactions_total`, e.g. `payment_card`. */
  readonly name: string;
  /** Placeholder type, e.g. `PAYMENT_CARD` → `<PAYMENT_CARD_1>`. */
  readonly entity: string;
  /** Global (`g`) and indices (`d`) regexes. A named group `value` limits the replacement to that group. */
  readonly patterns: readonly RegExp[];
  /** Cheap pre-check: when false the patterns are not run at all. */
  readonly mayContain?: (text: string) => boolean;
  /**
   * Validates a candidate (checksum, length table). Returns how many characters of it are
   * sensitive (0 = not sensitive). Default: the whole candidate.
   */
  readonly validate?: (candidate: string) => number;
  /** Canonical form used for placeholder consistency (e.g. digits only). Default: identity. */
  readonly normalize?: (value: string) => string;
}

/** A recognizer with the mode it runs in. */
export interface ActiveRecognizer {
  readonly recognizer: Recognizer;
  readonly mode: RedactionMode;
}

/** Result of redacting one triplet. */
export type RedactionResult =
  | { ok: true; triplet: Triplet; counts: Record<string, number> }
  | { ok: false; reason: 'redaction_error' };

/** Redacts triplets. Synchronous, never throws. */
export interface TripletRedactor {
  /** Version of the policy applied, recorded on every triplet (e.g. `1+3f2a9c01`, or `off`). */
  readonly policyVersion: string;
  /** True when hmac mode runs with a per-process random key (tokens join only within this process). */
  readonly ephemeralKey: boolean;
  redact(triplet: Triplet): RedactionResult;
  /** Redacts the strings `build` passes through (one placeholder book per call). Never throws. */
  redactWith<T>(build: (redact: (s: string) => string) => T): { ok: true; value: T; counts: Record<string, number> } | { ok: false; reason: 'redaction_error' };
  /**
   * A span's attributes with its identifiers pseudonymised as a triplet's would be: each
   * `hmacAttributes` value by its HMAC token, each attribute of `conversationKeys` (in order of
   * priority) by the conversation token, the first of them also under `ragwatch.conversation.id`.
   * The same object when there is nothing to replace (or redaction is off).
   */
  pseudonymiseAttributes(attributes: Readonly<Record<string, unknown>>, conversationKeys: readonly string[]): Readonly<Record<string, unknown>>;
  /**
   * The value attribute `key` holding `value` has on a triplet of this policy: the HMAC token of an
   * `hmacAttributes` identifier (also when a collector made the tokens upstream with the shared key),
   * else the value itself. Sampling compares configured values through it. Never throws.
   */
  pseudonymOf(key: string, value: string | number | boolean): string | number | boolean;
}

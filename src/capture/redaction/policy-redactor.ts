/**
 * The configured redaction policy applied to whole triplets: query, every source (content, id,
 * string metadata), response and the allow-listed attributes.
 * @module
 */
import { createHash, randomBytes } from 'node:crypto';
import { BUILTIN_RECOGNIZERS, type BuiltinRecognizerName } from './recognizers.ts';
import { PlaceholderBook, hmacToken, redactText, type HmacKey } from './text-redactor.ts';
import type { ActiveRecognizer, RedactionResult, TripletRedactor } from './types.ts';
import { redactionSection, type RedactionConfig } from '../../config/sections/redaction.ts';
import type { Conversation, Source, Triplet } from '../../triplet.ts';
import { PSEUDONYMOUS_CONVERSATION_ATTRIBUTE } from '../conversation.ts';

type AttributeValue = string | number | boolean;

function activeRecognizers(config: RedactionConfig): ActiveRecognizer[] {
  const custom: ActiveRecognizer[] = config.custom.map((c) => ({
    mode: c.mode,
    recognizer: { name: c.name, entity: c.name.toUpperCase(), patterns: [new RegExp(c.pattern, `${c.flags}dg`)] },
  }));
  const builtin: ActiveRecognizer[] = BUILTIN_RECOGNIZERS.filter((r) => config.recognizers[r.name as BuiltinRecognizerName].enabled).map((r) => ({
    recognizer: r,
    mode: config.recognizers[r.name as BuiltinRecognizerName].mode,
  }));
  return [...custom, ...builtin];
}

/** `policyVersion+<8 hex of the effective policy>`: two replicas with the same version and different rules differ. */
function policyFingerprint(config: RedactionConfig): string {
  const effective = { ...config, hmacKey: config.hmacKey ? 'set' : 'ephemeral' };
  return `${config.policyVersion}+${createHash('sha256').update(JSON.stringify(effective)).digest('hex').slice(0, 8)}`;
}

/** Redacts triplets with the configured policy. Synchronous and linear-time in the triplet's text. */
export class PolicyRedactor implements TripletRedactor {
  readonly policyVersion: string;
  readonly ephemeralKey: boolean;
  readonly #enabled: boolean;
  /** Pseudonyms are made here: off when a collector made them already (`textRedacted`), or redaction is off. */
  readonly #pseudonymise: boolean;
  /** Triplets of this policy carry pseudonyms (made here, or upstream by collectors with the shared key). */
  readonly #pseudonymous: boolean;
  readonly #recognizers: ActiveRecognizer[];
  readonly #allow: ReadonlySet<string>;
  readonly #hmacAttrs: ReadonlySet<string>;
  readonly #key: HmacKey;

  /**
   * @param config the `redaction` config section; default: every built-in recognizer on.
   * @param options `textRedacted`: the policy was applied upstream (span records from a collector, with
   *   the shared key): text redacted, identifiers pseudonymised; only the attribute allow-list applies
   *   here — no recognizer runs twice over the same text, no token is hashed again.
   */
  constructor(config: RedactionConfig = redactionSection.parse({}), options: { textRedacted?: boolean } = {}) {
    this.#enabled = config.enabled && !options.textRedacted;
    this.#pseudonymise = config.enabled && !options.textRedacted;
    this.#pseudonymous = config.enabled;
    this.#recognizers = activeRecognizers(config);
    this.#allow = new Set(config.allowAttributes);
    this.#hmacAttrs = new Set(config.hmacAttributes);
    this.ephemeralKey = config.hmacKey === undefined;
    this.#key = { id: config.hmacKeyId, secret: config.hmacKey ? Buffer.from(config.hmacKey, 'utf8') : randomBytes(32) };
    this.policyVersion = config.enabled ? policyFingerprint(config) : 'off';
  }

  redact(triplet: Triplet): RedactionResult {
    try {
      return this.#redact(triplet);
    } catch {
      // Fail closed: a triplet that could not be redacted never leaves capture.
      return { ok: false, reason: 'redaction_error' };
    }
  }

  #redact(triplet: Triplet): RedactionResult {
    const book = new PlaceholderBook(this.#key);
    const sources: Source[] = [];
    for (const s of triplet.sources) sources.push(this.#source(s, book));
    const out: Triplet = {
      ...triplet,
      query: this.#text(triplet.query, book),
      sources,
      response: this.#text(triplet.response, book),
      redactionPolicy: this.policyVersion,
    };
    if (triplet.attributes) out.attributes = this.#attributes(triplet.attributes, book);
    else delete out.attributes;
    if (triplet.conversation) {
      const c = triplet.conversation;
      // The earlier turns are user text like the query; the id is pseudonymised like session.id (stable under one hmacKey).
      const conversation: Conversation = { ...c, history: c.history.map((t) => ({ role: t.role, content: this.#text(t.content, book) })) };
      if (c.id !== undefined) conversation.id = this.#pseudonymise ? hmacToken(this.#key, 'conversation.id', c.id) : c.id;
      if (c.typedQuery !== undefined) conversation.typedQuery = this.#text(c.typedQuery, book);
      out.conversation = conversation;
    }
    const counts = book.counts;
    if (book.replaced) out.redactions = { ...triplet.redactions, ...counts };
    return { ok: true, triplet: out, counts };
  }

  /**
   * Runs `build` with a function that redacts one string; every string of one call shares a
   * placeholder book (a span record: the same e-mail gets the same placeholder in all its
   * attributes). Fails closed like {@link redact}.
   */
  redactWith<T>(build: (redact: (s: string) => string) => T): { ok: true; value: T; counts: Record<string, number> } | { ok: false; reason: 'redaction_error' } {
    try {
      const book = new PlaceholderBook(this.#key);
      const value = build((s) => this.#text(s, book));
      return { ok: true, value, counts: book.counts };
    } catch {
      return { ok: false, reason: 'redaction_error' };
    }
  }

  pseudonymiseAttributes(attributes: Readonly<Record<string, unknown>>, conversationKeys: readonly string[]): Readonly<Record<string, unknown>> {
    if (!this.#pseudonymise) return attributes;
    let out: Record<string, unknown> | undefined;
    const set = (k: string, v: unknown) => ((out ??= { ...attributes })[k] = v);
    let conversation: string | undefined;
    for (const k of conversationKeys) {
      const v = attributes[k];
      if (typeof v !== 'string' || v === '') continue;
      const token = hmacToken(this.#key, 'conversation.id', v);
      conversation ??= token;
      // An attribute that is also an HMAC attribute keeps its own token (as on a triplet): set below.
      if (!this.#hmacAttrs.has(k)) set(k, token);
    }
    for (const k of this.#hmacAttrs) {
      const v = attributes[k];
      if (v !== undefined && v !== null && typeof v !== 'object') set(k, hmacToken(this.#key, k, String(v)));
    }
    if (conversation !== undefined) set(PSEUDONYMOUS_CONVERSATION_ATTRIBUTE, conversation);
    else if (attributes[PSEUDONYMOUS_CONVERSATION_ATTRIBUTE] !== undefined) set(PSEUDONYMOUS_CONVERSATION_ATTRIBUTE, undefined);
    return out ?? attributes;
  }

  pseudonymOf(key: string, value: string | number | boolean): string | number | boolean {
    return this.#pseudonymous && this.#hmacAttrs.has(key) ? hmacToken(this.#key, key, String(value)) : value;
  }

  #text(s: string, book: PlaceholderBook): string {
    return this.#enabled ? redactText(s, this.#recognizers, book) : s;
  }

  #source(s: Source, book: PlaceholderBook): Source {
    const out: Source = { ...s, content: this.#text(s.content, book) };
    if (s.id !== undefined) out.id = this.#text(s.id, book);
    if (s.metadata) {
      const meta: Record<string, AttributeValue> = {};
      for (const [k, v] of Object.entries(s.metadata)) meta[k] = typeof v === 'string' ? this.#text(v, book) : v;
      out.metadata = meta;
    }
    return out;
  }

  #attributes(attrs: Record<string, AttributeValue>, book: PlaceholderBook): Record<string, AttributeValue> {
    const out: Record<string, AttributeValue> = {};
    for (const [k, v] of Object.entries(attrs)) {
      if (this.#hmacAttrs.has(k)) out[k] = this.#pseudonymise ? hmacToken(this.#key, k, String(v)) : v;
      else if (this.#allow.has(k)) out[k] = typeof v === 'string' ? this.#text(v, book) : v;
    }
    return out;
  }
}

/**
 * HCAT §4 privacy: `pii_free` — 1 when the response discloses no personal data of the configured types,
 * 0 when it does — computed without ever handling the values here. Triplets captured by ragwatch are
 * already redacted, and their placeholders say what was there (`<EMAIL_1>`, `<PAYMENT_CARD_k1_9f86…>`):
 * the response's placeholders are its disclosures, and the same placeholder in the query means the
 * user gave that value first (numbered per triplet with one book, so equal values share a number).
 * Triplets that were never redacted (policy `off`, or scored offline as given) are redacted here with
 * the built-in recognizers first — the values are replaced before anything is counted.
 * @module
 */
import { PolicyRedactor } from '../capture/redaction/policy-redactor.ts';
import { BUILTIN_RECOGNIZER_NAMES } from '../capture/redaction/recognizers.ts';
import { redactionSection } from '../config/sections/redaction.ts';
import type { Triplet } from '../triplet.ts';

/** What the response disclosed: counts per entity type (`email`, `payment_card`, …), never values. */
export interface PiiFinding {
  free: 0 | 1;
  types: Record<string, number>;
}

/** The check a scorer applies to a triplet's query and response. */
export type PiiCheck = (triplet: Pick<Triplet, 'query' | 'response' | 'redactionPolicy'>) => PiiFinding;

/** Options of {@link piiCheck}. */
export interface PiiOptions {
  /** Entity types that count (`email`, `phone`, `payment_card`, `iban`, `us_ssn`, `ip_address`, `secret`, custom names); empty = all. */
  types: readonly string[];
  /** Count a value the user's own query contained as disclosed. Default false. */
  countQueryPii: boolean;
  /** Custom recognizer names of `redaction.custom` (their placeholders count too). */
  custom?: readonly string[];
}

/** Placeholders of either redaction mode; group 1 is the entity (upper case). */
const PLACEHOLDER = /<([A-Z][A-Z0-9_]*?)_(?:\d{1,6}|[A-Za-z0-9-]{1,16}_[0-9a-f]{12})>/g;

const placeholders = (text: string) => [...text.matchAll(PLACEHOLDER)].map((m) => ({ token: m[0], entity: m[1]!.toLowerCase() }));

/** The check a scorer applies to every triplet it scores. */
export function piiCheck(options: PiiOptions): PiiCheck {
  const only = new Set(options.types);
  // Only real recognizers' placeholders count: a response cannot mint label values by writing "<FOO_1>".
  const known = new Set<string>([...BUILTIN_RECOGNIZER_NAMES, ...(options.custom ?? [])]);
  // Every built-in recognizer, placeholder mode: for triplets nobody redacted yet.
  const redactor = new PolicyRedactor(redactionSection.parse({}));
  return (triplet) => {
    let { query, response } = triplet;
    if (triplet.redactionPolicy === undefined || triplet.redactionPolicy === 'off') {
      const r = redactor.redactWith((redact) => [redact(query), redact(response)] as const);
      // Fail closed: text that could not be redacted counts as disclosing.
      if (!r.ok) return { free: 0, types: { unknown: 1 } };
      [query, response] = r.value;
    }
    const asked = new Set(placeholders(query).map((p) => p.token));
    const types: Record<string, number> = {};
    for (const p of placeholders(response)) {
      if (!known.has(p.entity) || (only.size > 0 && !only.has(p.entity))) continue;
      if (!options.countQueryPii && asked.has(p.token)) continue;
      types[p.entity] = (types[p.entity] ?? 0) + 1;
    }
    return { free: Object.keys(types).length === 0 ? 1 : 0, types };
  };
}

/** The check of the `judge.pii` config section (custom recognizers from `redaction.custom`), or undefined when it is off. */
export function piiCheckOf(config: { judge: { pii: { enabled: boolean; types: readonly string[]; countQueryPii: boolean } }; redaction: { custom: ReadonlyArray<{ name: string }> } }): PiiCheck | undefined {
  const section = config.judge.pii;
  return section.enabled ? piiCheck({ ...section, custom: config.redaction.custom.map((c) => c.name) }) : undefined;
}

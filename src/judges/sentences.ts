/**
 * THELMA's deterministic sentence decomposition D_sen: split on `.`, `!`, `?`.
 * @module
 */

/** Splits text into sentences at `.`/`!`/`?` followed by whitespace (so "3.5" stays whole). */
export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => /[\p{L}\p{N}]/u.test(s));
}

/**
 * `maxChars`: the response has at most N characters (Unicode code points, so an emoji counts once).
 * @module
 */
import type { CheckRule } from './types.ts';

/** The response is at most `max` characters long. */
export function maxCharsRule(max: number): CheckRule {
  const text = `maxChars ${max}`;
  return {
    text,
    test({ response }) {
      // Code points, counted without building an array of the whole text.
      let n = 0;
      for (const _ of response) if (++n > max) return { pass: false, failed: [`${text} (longer)`] };
      return { pass: true, failed: [] };
    },
  };
}

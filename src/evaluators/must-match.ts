/**
 * `mustMatch` / `mustNotMatch`: the response matches (or does not match) a regular expression. The
 * patterns passed the project's safe-pattern rules when the config was validated (`config/safe-pattern.ts`).
 * @module
 */
import type { CheckRule } from './types.ts';

/** A rule on a pattern: with `must: true` the response must match it, with `false` it must not. */
export function matchRule(pattern: string, flags: string, must: boolean): CheckRule {
  const regex = new RegExp(pattern, flags.replace(/[gy]/g, ''));
  const text = `${must ? 'mustMatch' : 'mustNotMatch'} /${pattern}/${flags}`;
  return {
    text,
    test({ response }) {
      const pass = regex.test(response) === must;
      return { pass, failed: pass ? [] : [text] };
    },
  };
}

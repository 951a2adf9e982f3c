/**
 * `citesSource`: the response references a retrieved source. `true`: a source's id appears in it as a
 * whole token, or a bracketed position `[n]` names one of the sources (1-based); `{ pattern }`: a match
 * of the pattern whose first group is a source's position or id. Skipped (`no_sources`) without
 * retrieved sources: there is nothing to cite, and that is not the answer's fault.
 * @module
 */
import type { CheckRule, CheckInput } from './types.ts';

const BRACKETED = /\[(\d{1,4})\]/g;

/** True when `ref` names one of `sources`: its 1-based position, or its id. */
function names(ref: string, sources: CheckInput['sources']): boolean {
  const position = /^\d{1,4}$/.test(ref) ? Number(ref) : 0;
  if (position >= 1 && position <= sources.length) return true;
  return sources.some((s) => s.id !== undefined && s.id !== '' && s.id === ref);
}

/** True when `id` occurs in `text` with no word character on either side. */
function containsToken(text: string, id: string): boolean {
  for (let at = text.indexOf(id); at >= 0; at = text.indexOf(id, at + 1)) {
    const before = at === 0 ? '' : text[at - 1]!;
    const after = text[at + id.length] ?? '';
    if (!/[\p{L}\p{N}_]/u.test(before) && !/[\p{L}\p{N}_]/u.test(after)) return true;
  }
  return false;
}

/** The response cites a retrieved source (see the module comment). */
export function citesSourceRule(option: true | { pattern: string; flags?: string | undefined }): CheckRule {
  const custom = option === true ? undefined : new RegExp(option.pattern, `${(option.flags ?? '').replace(/[gy]/g, '')}g`);
  const text = option === true ? 'citesSource' : `citesSource /${option.pattern}/`;
  return {
    text,
    test({ response, sources }) {
      if (sources.length === 0) return { skipped: 'no_sources' };
      let cited = false;
      if (custom) {
        for (const m of response.matchAll(custom)) if (m[1] !== undefined && names(m[1], sources)) cited = true;
      } else {
        for (const m of response.matchAll(BRACKETED)) if (names(m[1]!, sources)) cited = true;
        cited ||= sources.some((s) => s.id !== undefined && s.id.trim() !== '' && containsToken(response, s.id));
      }
      return { pass: cited, failed: cited ? [] : [`${text}: no retrieved source is cited`] };
    },
  };
}

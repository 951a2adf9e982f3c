/**
 * The Python compatibility table in docs/capture.md is what the tests observed (see
 * tests/capture/helpers/python-compat.ts): a changed capture.json or lock without the doc fails here.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DOC, END, START, renderCompat } from './helpers/python-compat.ts';

describe('docs/capture.md Python compatibility table', () => {
  it('equals the table made from the recorded capabilities and the locked versions', () => {
    const doc = readFileSync(DOC, 'utf8');
    const [from, to] = [doc.indexOf(START), doc.indexOf(END)];
    const expected = renderCompat();
    if (process.env.RAGWATCH_WRITE_DOCS === '1' && from >= 0 && to > from) writeFileSync(DOC, doc.slice(0, from) + expected + doc.slice(to + END.length));
    const current = readFileSync(DOC, 'utf8');
    const [a, b] = [current.indexOf(START), current.indexOf(END)];
    expect(a, `docs/capture.md has no ${START} … ${END} block`).toBeGreaterThanOrEqual(0);
    expect(current.slice(a, b + END.length)).toBe(expected);
  });
});

/**
 * The embedded judge's rule for follow-ups (docs/judges.md): the previous user message, then the
 * typed question — unless the app condensed it (typedQuery set) or there is no earlier user turn.
 */
import { describe, expect, it } from 'vitest';
import { queryInContext as contextualQuery } from '../../src/triplet.ts';

describe('contextualQuery', () => {
  const history = [{ role: 'user' as const, content: 'Who designed the clock tower?' }, { role: 'assistant' as const, content: 'Robert Chisholm.' }];
  it('prefixes an uncondensed follow-up with the previous user message', () => {
    expect(contextualQuery({ query: 'And when was it built?', conversation: { turn: 2, history } })).toBe('Who designed the clock tower?\nAnd when was it built?');
  });
  it('grades a condensed query, a first turn and a history without a user message as they are', () => {
    expect(contextualQuery({ query: 'When was the clock tower built?', conversation: { turn: 2, history, typedQuery: 'And when?' } })).toBe('When was the clock tower built?');
    expect(contextualQuery({ query: 'Who designed it?' })).toBe('Who designed it?');
    expect(contextualQuery({ query: 'Why?', conversation: { turn: 1, history: [{ role: 'assistant', content: 'Hello.' }] } })).toBe('Why?');
  });
});

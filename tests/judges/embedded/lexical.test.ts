import { describe, expect, it } from 'vitest';
import { checkableTokens, groundingLexical } from '../../../src/judges/embedded/lexical.ts';

describe('grounding_lexical', () => {
  it('extracts numbers, dates, amounts and capitalised entities, not sentence starters', () => {
    const t = checkableTokens('The tower was completed on March 2, 1896 for $12,500. It was named after Chimnabai I by Sayajirao Gaekwad III of Baroda State.');
    expect(t.numbers).toEqual(['2', '1896', '12500']);
    expect(t.entities).toEqual(['March', 'Chimnabai I', 'Sayajirao Gaekwad III of Baroda State']);
  });

  it('a correct answer is not marked down for a sentence start, and no entity crosses a full stop', () => {
    const answer = 'The game was played at Lucas Oil Stadium. To date, it is the only Super Bowl held there.';
    expect(checkableTokens(answer).entities).toEqual(['Lucas Oil Stadium', 'Super Bowl']);
    const r = groundingLexical(answer, ['Super Bowl XLVI was played at Lucas Oil Stadium in Indianapolis.']);
    expect(r).toMatchObject({ ok: true, score: 1, unsupported: [] });
  });

  it('a sentence-initial name is checked when it is uncommon or capitalised elsewhere', () => {
    expect(checkableTokens('Tokyo hosted the games. Despite the rain, it went well.').entities).toEqual(['Tokyo']);
    // "Bill" is a common word: checked only because the sources capitalise it mid-sentence.
    expect(checkableTokens('Bill signed it.').entities).toEqual([]);
    expect(checkableTokens('Bill signed it.', ['It was signed by Bill in 1990.']).entities).toEqual(['Bill']);
  });

  it('a one-word answer with its full stop is treated as the sentence start it is', () => {
    expect(checkableTokens('Sales.').entities).toEqual([]);
    expect(checkableTokens('Legal.', ["Brian O'Hara works in Legal."]).entities).toEqual(['Legal']);
    expect(checkableTokens('Tokyo.').entities).toEqual(['Tokyo']);
  });

  it('lists the response tokens that appear nowhere in the sources', () => {
    const r = groundingLexical('It was completed in 1856 and named after Chimnabai I, wife of Ranjit Singh.', ['Completed in 1896, named in memory of Chimnabai I.']);
    expect(r).toMatchObject({ ok: true, unsupported: ['1856', 'Ranjit Singh'] });
    expect(r.ok && r.score).toBeCloseTo(1 - 2 / 3, 12);
  });

  it('normalises thousands separators and possessives', () => {
    const r = groundingLexical("Arthur's Magazine sold 1,000 copies.", ["Arthur's Magazine (1844–1846) sold 1000 copies."]);
    expect(r).toMatchObject({ ok: true, score: 1, unsupported: [] });
  });

  it('skips when there is nothing to check or nothing to check against', () => {
    expect(groundingLexical('yes, it is.', ['Anything 42.'])).toMatchObject({ ok: false, skipped: 'no_checkable_tokens' });
    expect(groundingLexical('Built in 1896.', [])).toMatchObject({ ok: false, skipped: 'no_sources' });
  });
});

/** What moved: the cell whose flagged share stands highest above the series' baseline, by the evidence. */
import { describe, expect, it } from 'vitest';
import type { ScoredAnswer } from '../../src/weakness/cells.ts';
import { risenCell } from '../../src/weakness/risen-cell.ts';

function answers(n: number, flaggedEvery: number, dims: Record<string, string>, judge = 'llm'): ScoredAnswer[] {
  return Array.from({ length: n }, (_, i) => ({ tripletId: `t${i}`, judge, weight: 1, scores: { groundedness: i % flaggedEvery === 0 ? 0.5 : 1 }, dims }));
}

describe('risenCell', () => {
  it('names the release whose answers are flagged far above the baseline, not the bigger cell near it', () => {
    // Release 2.3 (40 answers, every 2nd flagged = 50 %) on a route shared with 2.2 (200 answers, every 20th = 5 %).
    const window = [...answers(200, 20, { release: '2.2', route: '/ask', model: 'gpt' }), ...answers(40, 2, { release: '2.3', route: '/ask', model: 'gpt' })];
    expect(risenCell(window, 'groundedness', 'llm', 0.8, 0.05, 20)).toBe('release=2.3: 50 % flagged (n=40) vs 5.0 % baseline');
  });

  it('needs minCount answers in a cell, the same judge, and a share above the baseline', () => {
    const small = answers(10, 1, { release: '2.3' });
    expect(risenCell(small, 'groundedness', 'llm', 0.8, 0.05, 20)).toBeUndefined();
    expect(risenCell(answers(50, 1, { release: '2.3' }, 'embedded'), 'groundedness', 'llm', 0.8, 0.05, 20)).toBeUndefined();
    expect(risenCell(answers(100, 50, { release: '2.3' }), 'groundedness', 'llm', 0.8, 0.05, 20)).toBeUndefined();
  });

  it('labels topics through the caller (topic ids become their words)', () => {
    const window = answers(30, 2, { topic: 't3' });
    expect(risenCell(window, 'groundedness', 'llm', 0.8, 0.05, 20, (d, v) => (d === 'topic' ? `refund, invoice (${v})` : v))).toBe('topic=refund, invoice (t3): 50 % flagged (n=30) vs 5.0 % baseline');
  });
});

/**
 * The column-wise answer ring against the object path it replaced: the same cells (counts, means,
 * intervals, flags, worst answers) as `breakdown` over the answer objects, on random answers with a
 * planted weak cell; the ring keeps the newest `capacity` answers in order; a dimension's values are
 * bounded (later ones share one value, counted).
 */
import { describe, expect, it } from 'vitest';
import { breakdown } from '../../src/weakness/breakdown.ts';
import { MARGINAL_DIMENSIONS, type ScoredAnswer } from '../../src/weakness/cells.ts';
import { AnswerColumns, OVERFLOW, weaknessCells } from '../../src/weakness/columns.ts';
import { rng } from '../helpers/rng.ts';

function answers(n: number, seed: number): ScoredAnswer[] {
  const random = rng(seed);
  return Array.from({ length: n }, (_, i) => {
    const topic = `t${Math.floor(random() * 5)}`;
    const queryType = ['what', 'how', 'who'][Math.floor(random() * 3)]!;
    const weak = topic === 't3' && queryType === 'how';
    const dims: Record<string, string> = { topic, queryType, route: random() < 0.5 ? '/a' : '/b' };
    if (random() < 0.7) dims.model = random() < 0.5 ? 'm1' : 'm2';
    const scores: Record<string, number> = { groundedness: Math.min(1, Math.max(0, (weak ? 0.45 : 0.8) + (random() - 0.5) * 0.3)) };
    if (random() < 0.6) scores.context_relevancy = random();
    return { tripletId: `a${i}`, judge: random() < 0.8 ? 'embedded' : 'llm', weight: 1 + Math.floor(random() * 4), scores, dims };
  });
}

describe('AnswerColumns', () => {
  it('gives the cells breakdown() gives over the answer objects, metric by metric, judge by judge', () => {
    const all = answers(3000, 11);
    const cells = weaknessCells(all, { bivariateMetrics: ['groundedness'], minCount: 20, fdr: 0.05 });
    let compared = 0;
    for (const metric of ['context_relevancy', 'groundedness']) {
      for (const judge of ['embedded', 'llm']) {
        const group = all.filter((a) => a.judge === judge && a.scores[metric] !== undefined);
        const by = [...MARGINAL_DIMENSIONS.map((d) => [d]), ...(metric === 'groundedness' ? [['topic', 'queryType']] : [])];
        for (const dims of by) {
          const expected = breakdown(group, dims, { minCount: 20, fdr: 0.05 }, (a) => a.scores[metric]);
          const got = cells.filter((c) => c.metric === metric && c.judge === judge && Object.keys(c.dimensions).join() === dims.join());
          expect(got.map((c) => c.dimensions).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual(expected.map((c) => c.dimensions).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))));
          for (const e of expected) {
            const c = got.find((x) => JSON.stringify(x.dimensions) === JSON.stringify(e.dimensions))!;
            expect(c.n).toBe(e.n);
            expect(c.mean).toBeCloseTo(e.mean, 12);
            expect(c.ciLow).toBeCloseTo(e.ciLow, 12);
            expect(c.flagged).toBe(e.flagged);
            expect(c.q === null ? null : c.q).toBe(e.q === null ? null : c.q);
            if (e.q !== null) expect(c.q!).toBeCloseTo(e.q, 12);
            compared++;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(40);
    const planted = cells.find((c) => c.metric === 'groundedness' && c.judge === 'embedded' && c.dimensions.topic === 't3' && c.dimensions.queryType === 'how')!;
    expect(planted.flagged).toBe(true);
    // Its worst answers are the three lowest-scoring of the cell.
    const lowest = all.filter((a) => a.judge === 'embedded' && a.dims.topic === 't3' && a.dims.queryType === 'how').sort((a, b) => a.scores.groundedness! - b.scores.groundedness!).slice(0, 3).map((a) => a.tripletId);
    expect(planted.worst).toEqual(lowest);
  });

  it('keeps the newest answers in order when full, and only those at or after the window start', () => {
    const ring = new AnswerColumns(100);
    const all = answers(250, 3);
    const replaced = all.map((a, i) => ring.add(a, 1000 + i));
    expect(replaced.slice(0, 100).every((r) => r === undefined)).toBe(true);
    expect(replaced[100]).toBe(1000);
    expect(ring.size).toBe(100);
    const kept = ring.answers(0);
    expect(kept.map((a) => a.tripletId)).toEqual(all.slice(150).map((a) => a.tripletId));
    expect(kept[0]).toEqual(all[150]);
    expect(ring.answers(1000 + 240).map((a) => a.tripletId)).toEqual(all.slice(240).map((a) => a.tripletId));
  });

  it('bounds the values of a dimension: past 4096 they share one value, counted', () => {
    const ring = new AnswerColumns(5000);
    for (let i = 0; i < 4200; i++) ring.add({ tripletId: `r${i}`, judge: 'embedded', weight: 1, scores: { groundedness: 0.5 }, dims: { route: `/r${i}` } }, i);
    expect(ring.overflowed).toBe(4200 - 4096);
    const routes = new Set(ring.answers(0).map((a) => a.dims.route));
    expect(routes.size).toBe(4097);
    expect(routes.has(OVERFLOW)).toBe(true);
  });
});

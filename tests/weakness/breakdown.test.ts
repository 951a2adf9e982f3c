/**
 * The flagging rule on synthetic cells with known differences: among 12 topics × 11 question types,
 * the one planted cell (mean 0.45 against 0.80) is flagged and the noise is not; on data with no
 * difference at all, Benjamini–Hochberg keeps runs with any flag near its 5 % level; hand cases.
 */
import { describe, expect, it } from 'vitest';
import { benjaminiHochberg, breakdown, type Observation } from '../../src/weakness/breakdown.ts';
import { rng } from '../helpers/rng.ts';

/** 12 × 11 cells × 40 answers, scores ~ clip(N(mean, 0.15)); the planted cell has `plantedMean`. */
function simulate(seed: number, plantedMean?: number): Observation[] {
  const r = rng(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());
  const out: Observation[] = [];
  for (let t = 0; t < 12; t++) {
    for (let q = 0; q < 11; q++) {
      const mean = plantedMean !== undefined && t === 3 && q === 5 ? plantedMean : 0.8;
      for (let i = 0; i < 40; i++) out.push({ value: Math.min(1, Math.max(0, mean + 0.15 * normal())), weight: r() < 0.5 ? 1 : 4, dims: { topic: `t${t}`, queryType: `q${q}` } });
    }
  }
  return out;
}

describe('breakdown', () => {
  it('flags the planted topic × question-type cell every time, and noise cells rarely (false discoveries within the 5 % rate), over 20 seeds', () => {
    let falseFlags = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const cells = breakdown(simulate(seed, 0.45), ['topic', 'queryType']);
      expect(cells).toHaveLength(132);
      const flagged = cells.filter((c) => c.flagged).map((c) => `${c.dimensions.topic}/${c.dimensions.queryType}`);
      expect(flagged[0], `seed ${seed}`).toBe('t3/q5');
      falseFlags += flagged.length - 1;
      expect(cells[0]!.ciHigh).toBeLessThan(cells[0]!.restMean!);
    }
    // FDR = false / all flags; with 20 true discoveries, at most 2 false ones keeps it under 10 %.
    expect(falseFlags).toBeLessThanOrEqual(2);
  });

  it('controls false flags when no cell differs (runs with any flag ≤ 10 of 100)', () => {
    let runsWithFlags = 0;
    for (let seed = 100; seed < 200; seed++) if (breakdown(simulate(seed), ['topic', 'queryType']).some((c) => c.flagged)) runsWithFlags++;
    expect(runsWithFlags).toBeLessThanOrEqual(10);
  });

  it('never flags a cell below the minimum count, and computes weighted means', () => {
    const obs: Observation[] = [
      ...Array.from({ length: 5 }, () => ({ value: 0, weight: 1, dims: { topic: 'small' } })),
      ...Array.from({ length: 100 }, (_, i) => ({ value: i % 2, weight: i % 2 ? 3 : 1, dims: { topic: 'big' } })),
    ];
    const cells = breakdown(obs, ['topic'], { minCount: 20 });
    const small = cells.find((c) => c.dimensions.topic === 'small')!;
    expect(small).toMatchObject({ n: 5, mean: 0, q: null, flagged: false });
    expect(cells.find((c) => c.dimensions.topic === 'big')!.mean).toBeCloseTo(0.75, 12);
  });

  it('Benjamini–Hochberg adjusts as by hand', () => {
    // Sorted p 0.01, 0.02, 0.03, 0.5 → raw q 0.04, 0.04, 0.04, 0.5 (monotone from the top).
    expect(benjaminiHochberg([0.03, 0.5, 0.01, 0.02]).map((q) => Number(q.toFixed(6)))).toEqual([0.04, 0.5, 0.04, 0.04]);
  });
});

/**
 * HCAT completeness on constructed cases with hand-computed values: the sentence-similarity score, the
 * relevance cut, and the optimal transport against a brute-force solution on small inputs (with uniform
 * masses 1/n and 1/k, OT equals the best perfect matching of the source sentences copied k times onto
 * the answer sentences copied n times, divided by n·k — enumerated over every permutation).
 */
import { describe, expect, it } from 'vitest';
import { completeness, sinkhornCost } from '../../../src/judges/embedded/completeness.ts';
import { rng } from '../../helpers/rng.ts';

/** Exact OT with uniform masses by brute force over the replicated assignment problem (n·k ≤ 8). */
function bruteForceOt(cost: number[][]): number {
  const n = cost.length;
  const k = cost[0]!.length;
  const rows = Array.from({ length: n * k }, (_, r) => Math.floor(r / k));
  const cols = Array.from({ length: n * k }, (_, c) => Math.floor(c / n));
  let best = Infinity;
  const used = new Array<boolean>(n * k).fill(false);
  const walk = (r: number, acc: number) => {
    if (acc >= best) return;
    if (r === n * k) {
      best = acc;
      return;
    }
    for (let c = 0; c < n * k; c++) {
      if (used[c]) continue;
      used[c] = true;
      walk(r + 1, acc + cost[rows[r]!]![cols[c]!]!);
      used[c] = false;
    }
  };
  walk(0, 0);
  return best / (n * k);
}

const unit = (v: number[]) => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};

describe('completeness', () => {
  it('sinkhorn matches brute-force optimal transport on small random problems', () => {
    const random = rng(3);
    for (const [n, k] of [[2, 2], [2, 3], [3, 2], [2, 4], [4, 2], [1, 5], [3, 1]] as const) {
      for (let t = 0; t < 5; t++) {
        const cost = Array.from({ length: n }, () => Array.from({ length: k }, () => random()));
        const exact = bruteForceOt(cost);
        expect(Math.abs(sinkhornCost(cost, Array(n).fill(1 / n), Array(k).fill(1 / k)) - exact), `${n}x${k}`).toBeLessThan(0.02);
      }
    }
  });

  it('an answer restating every relevant source sentence is complete; one covering half is not; irrelevant source sentences do not count', () => {
    const e = (i: number) => Array.from({ length: 6 }, (_, j) => (j === i ? 1 : 0));
    // Query close to source sentences 0 and 1 (cos 0.7 each), unrelated to 2 (an aside in the chunk).
    const query = [unit([1, 1, 0, 0, 0, 0])];
    const source = [e(0), e(1), e(2)];
    const full = completeness(query, source, [e(0), e(1)], 0.5)!;
    expect(full.relevant).toBe(2);
    expect(full.completeness).toBeCloseTo(1, 9);
    expect(full.distribution).toBeGreaterThan(0.98);
    // Covers sentence 0 only: max cos per relevant sentence = (1 + 0) / 2.
    const half = completeness(query, source, [e(0)], 0.5)!;
    expect(half.completeness).toBeCloseTo(0.5, 9);
    // OT: all mass of the single answer sentence; half the source mass travels at cost 1 → W = 0.5.
    expect(half.distribution).toBeCloseTo(0.5, 1);
    expect(half.leastCovered[0]).toBe(1);
    // A paraphrase at cos 0.8 of each relevant sentence: sentence similarity 0.8, transport cost 0.2.
    const para = completeness(query, source, [unit([0.8, 0, 0, 0.6, 0, 0]), unit([0, 0.8, 0, 0, 0.6, 0])], 0.5)!;
    expect(para.completeness).toBeCloseTo(0.8, 9);
    expect(para.distribution).toBeCloseTo(0.8, 1);
  });

  it('is skipped without sentences on a side, and keeps the most query-like sentence when none reaches the cut', () => {
    expect(completeness([], [[1, 0]], [[1, 0]], 0.5)).toBeUndefined();
    expect(completeness([[1, 0]], [[1, 0]], [], 0.5)).toBeUndefined();
    const r = completeness([[1, 0, 0]], [unit([0.3, 1, 0]), [0, 0, 1]], [unit([0.3, 1, 0])], 0.9)!;
    expect(r.relevant).toBe(1);
    expect(r.completeness).toBeCloseTo(1, 9);
  });
});

describe('completeness on the examples page', () => {
  it('names the least covered source sentences of an incomplete answer', async () => {
    const { renderExamplesPage } = await import('../../../src/server/examples-page.ts');
    const record = { tripletId: 't', traceId: 'a'.repeat(32), service: 's', stratum: 'all', weight: 1, timestamp: '2026-11-25T00:00:00Z', judge: { kind: 'embedded' as const }, scores: { completeness: 0.1 }, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [], uncoveredSources: ['Refunds take <14> days.'] }, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 } };
    const html = renderExamplesPage([{ record, query: 'q', response: 'r', sources: [] }], { thresholds: { completeness: 0.2 } });
    expect(html).toContain('Least covered source sentences: <q>Refunds take &lt;14&gt; days.</q>');
  });
});

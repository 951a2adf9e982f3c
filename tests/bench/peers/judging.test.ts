import { describe, expect, it } from 'vitest';
import { commonTriplets, fromLlmJudgeReal, fromLocalFixture, summarize, type JudgmentRecord, type LabelledTriplet } from '../../../bench/peers/judging.ts';

const triplet = (row: number, label: 0 | 1, answer: string): LabelledTriplet => ({ id: `h${row}-${label === 1 ? 'right' : 'hallucinated'}`, row, label, question: 'q', contexts: ['k'], answer });
const record = (tool: string, t: LabelledTriplet, faithfulness: number | undefined, extra: Partial<JudgmentRecord> = {}): JudgmentRecord => ({
  tool, id: t.id, row: t.row, label: t.label, ...(faithfulness !== undefined ? { faithfulness } : {}), relevancy: 0.5, calls: 2, failedCalls: 0, inputTokens: 100, outputTokens: 10, seconds: 1, errors: [], ...extra,
});

describe('the peer bench reads its records', () => {
  // Rows 0 and 1 (answers of equal length in row 0), row 2 judged by one tool only.
  const ts = [triplet(0, 1, 'Paris'), triplet(0, 0, 'Lyon'), triplet(1, 1, 'It was 1896'), triplet(1, 0, 'It was opened in 1901 by the king'), triplet(2, 1, 'a'), triplet(2, 0, 'b')];
  const records = [
    record('a', ts[0]!, 0.9, { seconds: 3 }), record('a', ts[1]!, 0.2, { seconds: 100 }), record('a', ts[2]!, 0.8, { seconds: 1 }), record('a', ts[3]!, 0.3, { seconds: 2 }), record('a', ts[4]!, 1), record('a', ts[5]!, 0),
    // Tool b ranks one pair wrong and fails one judgment.
    record('b', ts[0]!, 0.1, { calls: 5 }), record('b', ts[1]!, 0.6, { calls: 5 }), record('b', ts[2]!, 0.7, { calls: 5 }), record('b', ts[3]!, undefined, { calls: 5, errors: ['faithfulness: parse'] }),
  ];

  it('compares the tools on the triplets every tool judged', () => {
    expect(commonTriplets(records, ts).map((t) => t.id)).toEqual(['h0-right', 'h0-hallucinated', 'h1-right', 'h1-hallucinated']);
    expect(commonTriplets([], ts)).toEqual([]);
  });

  it('costs per triplet, the median triplet, failed judgments, AUC against the labels, length-matched pairs', () => {
    const common = commonTriplets(records, ts);
    const a = summarize('a', records, common);
    expect(a).toMatchObject({ triplets: 4, callsPerTriplet: 2, inputTokensPerTriplet: 100, outputTokensPerTriplet: 10, failedJudgments: 0, faithfulnessAuc: 1, lengthMatchedPairs: 1, faithfulnessAucLengthMatched: 1 });
    expect(a.wallSPerTriplet).toBeCloseTo(106 / 4, 12);
    expect(a.wallSMedianPerTriplet).toBe(2.5);
    // Perfect separation: no DeLong interval (zero variance); b's 0.5 has one around it.
    expect(a.faithfulnessAuc95).toBeUndefined();
    // b: positives 0.1, 0.7 against the one negative it scored, 0.6: one of two pairs ranked right.
    const b = summarize('b', records, common);
    expect(b).toMatchObject({ callsPerTriplet: 5, failedJudgments: 1, faithfulnessAuc: 0.5, faithfulnessAucLengthMatched: 0 });
    // Every relevancy is 0.5: ties count one half.
    expect(b.relevancyAuc).toBe(0.5);
    expect(b.faithfulnessAuc95![0]).toBeLessThan(0.5);
    expect(b.faithfulnessAuc95![1]).toBeGreaterThan(0.5);
  });

  it('reads the local judge fixture as ragwatch_local records: faithfulness only, its missing relevancy not a failure', () => {
    const local = fromLocalFixture({ right: [{ claim_support: 0.9 }, { claim_support: 0.8 }], hallucinated: [{ claim_support: 0.1 }, {}] });
    expect(local.map((r) => r.id)).toEqual(['h0-right', 'h0-hallucinated', 'h1-right', 'h1-hallucinated']);
    const s = summarize('ragwatch_local', local, ts.slice(0, 4));
    // One hallucinated answer without claim_support: one failed judgment, left out of the AUC.
    expect(s).toMatchObject({ failedJudgments: 1, faithfulnessAuc: 1, relevancyAuc: undefined, callsPerTriplet: 0 });
  });

  it('reads scripts/llm-judge-real.ts records as ragwatch LLM judge records', () => {
    const r = fromLlmJudgeReal({ row: 3, label: 0, ok: true, scores: { groundedness: 0.25, response_precision: 1 }, calls: 3, inputTokens: 3000, outputTokens: 300, seconds: 90 });
    expect(r).toMatchObject({ tool: 'ragwatch', id: 'h3-hallucinated', faithfulness: 0.25, relevancy: 1, calls: 3, errors: [] });
    const failed = fromLlmJudgeReal({ row: 3, label: 1, ok: false, error: 'timeout', calls: 4, inputTokens: 1, outputTokens: 0, seconds: 9 });
    expect(failed.faithfulness).toBeUndefined();
    expect(failed.errors).toEqual(['timeout']);
  });
});

/**
 * The judge audit against hand-computed precision and recall; undefined ratios are null, never 0 or 1.
 */
import { describe, expect, it } from 'vitest';
import { judgeAudit } from '../../src/probes/audit.ts';
import type { ProbeOutcome } from '../../src/probes/runner.ts';
import type { ProbeQuery } from '../../src/probes/types.ts';
import type { ScoreRecord } from '../../src/triplet.ts';

const query: ProbeQuery = { suite: 's', template: 't', group: 'g', variant: 'text:0', query: 'q', fill: {}, truth: ['x'], match: 'contains', tolerance: 0 };
const outcome = (traceId: string, kind: ProbeOutcome['outcome']): ProbeOutcome => ({ query, outcome: kind, traceId });
const record = (traceId: string, judge: 'llm' | 'embedded', scores: Record<string, number>): ScoreRecord => ({
  tripletId: traceId, traceId, service: 's', stratum: 'probe', weight: 1, timestamp: '', judge: { kind: judge }, scores, skipped: {},
  details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 }, origin: 'probe',
});

describe('judge audit', () => {
  it('precision and recall of "below threshold" for wrong probes, per metric and judge', () => {
    // Groundedness (threshold 0.8): flags t1 (wrong), t2 (correct), t3 (wrong); misses t4 (abstained).
    const outcomes = [outcome('t1', 'wrong'), outcome('t2', 'correct'), outcome('t3', 'wrong'), outcome('t4', 'abstained'), outcome('t5', 'correct'), outcome('t6', 'error')];
    const records = new Map([
      ['t1', [record('t1', 'llm', { groundedness: 0.2 }), record('t1', 'embedded', { grounding_lexical: 1 })]],
      ['t2', [record('t2', 'llm', { groundedness: 0.5 }), record('t2', 'embedded', { grounding_lexical: 1 })]],
      ['t3', [record('t3', 'llm', { groundedness: 0.1 })]],
      ['t4', [record('t4', 'llm', { groundedness: 0.9 })]],
      ['t5', [record('t5', 'llm', { groundedness: 1 }), record('t5', 'embedded', { grounding_lexical: 1 })]],
      ['t6', [record('t6', 'llm', { groundedness: 0 })]],
    ]);
    const rows = judgeAudit(outcomes, records, { groundedness: 0.8, grounding_lexical: 0.8 });
    expect(rows).toEqual([
      { metric: 'groundedness', judge: 'llm', n: 5, flagged: 3, wrong: 3, precision: 2 / 3, recall: 2 / 3 },
      { metric: 'grounding_lexical', judge: 'embedded', n: 3, flagged: 0, wrong: 1, precision: null, recall: 0 },
    ]);
  });

  it('no wrong probe: recall is null; metrics without a threshold are not audited', () => {
    const rows = judgeAudit([outcome('a', 'correct')], new Map([['a', [record('a', 'llm', { groundedness: 0.9, faithfulness: 0.1 })]]]), { groundedness: 0.8 });
    expect(rows).toEqual([{ metric: 'groundedness', judge: 'llm', n: 1, flagged: 0, wrong: 0, precision: null, recall: null }]);
  });
});

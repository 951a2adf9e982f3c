/**
 * `onUnscored`: every judge that was to score a triplet and made no record is reported once, with a
 * stable reason — the main judge's final failure (never a retry), the companion's failure, and both
 * judges when the budget sheds the triplet; a scored triplet reports nothing. The evaluation export
 * turns these into `error.type` results (tests/evaluation-export/failed-evaluations.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { RagwatchError } from '../../src/errors.ts';
import type { Judge, JudgeResult } from '../../src/judges/types.ts';
import type { ScoreFailure } from '../../src/scorer/record-sinks.ts';
import { ScoringBudget } from '../../src/sampling/budget.ts';
import { Scorer } from '../../src/scorer/scorer.ts';
import { createInstruments } from '../../src/telemetry/instruments.ts';
import type { SampledTriplet } from '../../src/triplet.ts';
import { tripletOf } from '../sampling/fixtures.ts';

const OK: JudgeResult = {
  ok: true,
  scores: { groundedness: 0.5 },
  skipped: {},
  details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] },
  usage: { calls: 1, inputTokens: 1, outputTokens: 1, durationMs: 1 },
};

function judgeOf(kind: 'llm' | 'embedded', answer: () => JudgeResult, model?: string): Judge {
  return { kind, ...(model ? { model } : {}), ready: true, init: () => Promise.resolve(), score: () => Promise.resolve(answer()), shutdown: () => Promise.resolve() };
}

const fail = (code: 'RAGWATCH_JUDGE_MALFORMED' | 'RAGWATCH_JUDGE_UNAVAILABLE', retriable: boolean): JudgeResult => ({ ok: false, retriable, error: new RagwatchError(code, code) });
const sampled = (i: number): SampledTriplet => ({ ...tripletOf(i), sampling: { weight: 1, stratum: 'all', rule: 'rate' } });

function scorerWith(main: Judge, options: { companion?: Judge; budget?: ScoringBudget } = {}) {
  const instruments = createInstruments({ processMetrics: false });
  const unscored: Array<{ failure: ScoreFailure; tripletId: string }> = [];
  const scorer = new Scorer({ judge: main, instruments, maxAttempts: 2, ...options, onUnscored: (failure, t) => unscored.push({ failure, tripletId: t.id }) });
  return { scorer, unscored, instruments };
}

describe('Scorer onUnscored', () => {
  it('reports the main judge once its failure is final, not on a retry', async () => {
    const { scorer, unscored, instruments } = scorerWith(judgeOf('llm', () => fail('RAGWATCH_JUDGE_UNAVAILABLE', true), 'm1'));
    instruments.inFlight.inc();
    expect((await scorer.handle(sampled(1), { attempt: 1 })).status).toBe('retry');
    expect(unscored).toEqual([]);
    expect((await scorer.handle(sampled(1), { attempt: 2 })).status).toBe('failed');
    expect(unscored).toHaveLength(1);
    expect(unscored[0]!.failure).toMatchObject({ judge: { kind: 'llm', model: 'm1' }, reason: 'RAGWATCH_JUDGE_UNAVAILABLE' });
    expect(unscored[0]!.tripletId).toBe(sampled(1).id);
    expect(Math.abs(unscored[0]!.failure.timeMs - Date.now())).toBeLessThan(5_000);
  });

  it('reports a non-retriable failure at once, and the companion only when it fails too', async () => {
    const { scorer, unscored, instruments } = scorerWith(judgeOf('llm', () => fail('RAGWATCH_JUDGE_MALFORMED', false)), { companion: judgeOf('embedded', () => OK) });
    instruments.inFlight.inc();
    const result = await scorer.handle(sampled(2), { attempt: 1 });
    expect(result).toMatchObject({ status: 'failed', companion: { judge: { kind: 'embedded' } } });
    expect(unscored.map((u) => [u.failure.judge.kind, u.failure.reason])).toEqual([['llm', 'RAGWATCH_JUDGE_MALFORMED']]);

    const both = scorerWith(judgeOf('llm', () => OK), { companion: judgeOf('embedded', () => fail('RAGWATCH_JUDGE_UNAVAILABLE', true)) });
    both.instruments.inFlight.inc();
    expect((await both.scorer.handle(sampled(3), { attempt: 1 })).status).toBe('scored');
    expect(both.unscored.map((u) => [u.failure.judge.kind, u.failure.reason])).toEqual([['embedded', 'RAGWATCH_JUDGE_UNAVAILABLE']]);
  });

  it('reports both judges when the budget sheds, nothing when scored', async () => {
    const { scorer, unscored, instruments } = scorerWith(judgeOf('llm', () => OK), { companion: judgeOf('embedded', () => OK), budget: new ScoringBudget({ maxTripletsPerMinute: 1 }) });
    instruments.inFlight.inc(2);
    expect((await scorer.handle(sampled(4), { attempt: 1 })).status).toBe('scored');
    expect(unscored).toEqual([]);
    expect(await scorer.handle(sampled(5), { attempt: 1 })).toEqual({ status: 'dropped', reason: 'budget_triplets' });
    expect(unscored.map((u) => [u.failure.judge.kind, u.failure.reason, u.tripletId])).toEqual([
      ['llm', 'budget_triplets', sampled(5).id],
      ['embedded', 'budget_triplets', sampled(5).id],
    ]);
  });

  it('a throwing listener changes nothing of the outcome', async () => {
    const instruments = createInstruments({ processMetrics: false });
    const scorer = new Scorer({ judge: judgeOf('llm', () => fail('RAGWATCH_JUDGE_MALFORMED', false)), instruments, onUnscored: () => { throw new Error('sink bug'); } });
    instruments.inFlight.inc();
    expect(await scorer.handle(sampled(6), { attempt: 1 })).toMatchObject({ status: 'failed', reason: 'RAGWATCH_JUDGE_MALFORMED' });
  });
});

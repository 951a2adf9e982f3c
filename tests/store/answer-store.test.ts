/**
 * The judged answers behind the answer page (src/store/answer-store.ts): found by trace id and by the
 * provider's response id, text clipped, bounded by count (oldest evicted, counted) and by rate.
 */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { AnswerStore } from '../../src/store/answer-store.ts';
import { openDatabase } from '../../src/store/sqlite.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';

const trace = (i: number) => i.toString(16).padStart(32, '0');
function pair(i: number, judge: 'llm' | 'embedded' = 'llm'): [ScoreRecord, SampledTriplet] {
  const record: ScoreRecord = { tripletId: `t${i}`, traceId: trace(i), service: 'svc', stratum: 'all', weight: 1, timestamp: '2026-11-01T10:00:00.000Z', judge: { kind: judge }, scores: { groundedness: 0.5 }, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [], usage: { calls: 1, inputTokens: 1, outputTokens: 1, durationMs: 1 } };
  const triplet: SampledTriplet = { id: `t${i}`, traceId: trace(i), spanId: '0'.repeat(16), service: 'svc', timestamp: record.timestamp, query: 'q'.repeat(50), sources: Array.from({ length: 30 }, (_, k) => ({ id: `d${k}`, content: 'x'.repeat(50) })), response: 'r', responseId: `resp-${i}`, release: '1.0', latency: { durationMs: 1 }, convention: 'genai', sampling: { weight: 1, stratum: 'all', rule: 'rate' } };
  return [record, triplet];
}

describe('AnswerStore', () => {
  it('finds a trace\'s answers (one per judge) and a trace by response id; clips text and sources', async () => {
    const store = new AnswerStore({ db: await openDatabase(':memory:'), maxAnswers: 100, maxTextChars: 10 });
    store.onRecord(...pair(1));
    store.onRecord(...pair(1, 'embedded'));
    store.onRecord(...pair(2));
    const got = store.forTrace(trace(1));
    expect(got.map((a) => a.record.judge.kind)).toEqual(['llm', 'embedded']);
    expect(got[0]).toMatchObject({ query: `${'q'.repeat(10)}…`, release: '1.0', responseId: 'resp-1' });
    expect(got[0]!.sources).toHaveLength(20);
    expect(got[0]!.sources[0]!.content).toBe(`${'x'.repeat(10)}…`);
    expect(store.traceOfResponse('resp-2')).toBe(trace(2));
    expect(store.traceOfResponse('nope')).toBeUndefined();
    expect(store.forTrace(trace(9))).toEqual([]);
  });

  it('evicts the oldest beyond maxAnswers, counted', async () => {
    const registry = new Registry();
    let now = 0;
    const store = new AnswerStore({ db: await openDatabase(':memory:'), maxAnswers: 20, maxPerSecond: Infinity, registry, now: () => now });
    for (let i = 0; i < 600; i++) {
      now = i;
      store.onRecord(...pair(i));
    }
    store.flush();
    expect(store.size).toBeLessThanOrEqual(20);
    expect(store.forTrace(trace(599))).toHaveLength(1);
    expect(store.forTrace(trace(0))).toEqual([]);
    expect(await registry.metrics()).toMatch(/ragwatch_store_answers_evicted_total \d+/);
  });

  it('keeps at most maxPerSecond a second, the rest counted', async () => {
    const registry = new Registry();
    let now = 1_000;
    const store = new AnswerStore({ db: await openDatabase(':memory:'), maxAnswers: 100, maxPerSecond: 3, registry, now: () => now });
    for (let i = 0; i < 5; i++) store.onRecord(...pair(i));
    now = 2_000;
    store.onRecord(...pair(5));
    expect(store.size).toBe(4);
    expect(await registry.metrics()).toContain('ragwatch_store_answers_skipped_total 2');
  });
});

/**
 * The feedback store's answer writes are bounded (issue 53): at most `maxAnswersPerSecond` scored
 * answers a second are written for the join (an answer whose feedback is already held always is), the
 * rest counted; near the table's bound each flush evicts about one batch, never 5 % of the table at once.
 */
import { describe, expect, it } from 'vitest';
import { DatabaseSync } from 'node:sqlite';
import { Registry } from 'prom-client';
import { FeedbackAnswerSink } from '../../src/feedback/answer-sink.ts';
import { FeedbackStore } from '../../src/feedback/feedback-store.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';

const hex = (n: number) => n.toString(16).padStart(32, '0');

function scored(n: number): { record: ScoreRecord; triplet: SampledTriplet } {
  const traceId = hex(n);
  const triplet: SampledTriplet = { id: `t${n}`, traceId, spanId: 'a'.repeat(16), service: 'rag', timestamp: new Date(0).toISOString(), query: 'q', sources: [{ content: 'c' }], response: 'r', latency: { durationMs: 1 }, convention: 'custom', sampling: { weight: 1, stratum: 'all', rule: 'all' } };
  const record: ScoreRecord = { tripletId: triplet.id, traceId, service: 'rag', stratum: 'all', weight: 1, timestamp: triplet.timestamp, judge: { kind: 'embedded' }, scores: { grounding_lexical: 0.5 }, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [], unsupportedTokens: [] }, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 } };
  return { record, triplet };
}

describe('feedback answer writes', () => {
  it('writes at most maxAnswersPerSecond a second, always an answer with feedback waiting, and counts the rest', async () => {
    const store = new FeedbackStore({ db: new DatabaseSync(':memory:'), maxItems: 100, maxAnswers: 1000 });
    const registry = new Registry();
    let now = 5_000;
    const sink = new FeedbackAnswerSink({ store, registry, maxAnswersPerSecond: 3, now: () => now });
    // Feedback that arrived before its answer was scored.
    store.addFeedback({ id: 'f', traceId: hex(7), kind: 'thumbs', value: 0, polarity: 'negative', service: 'rag', source: 'api', createdMs: now });
    for (let n = 1; n <= 8; n++) sink.onRecord(scored(n).record, scored(n).triplet);
    now += 1000;
    for (let n = 11; n <= 12; n++) sink.onRecord(scored(n).record, scored(n).triplet);
    store.flush();
    const kept = [1, 2, 3, 4, 5, 6, 7, 8, 11, 12].filter((n) => store.answersOf(hex(n), undefined).length > 0);
    expect(kept).toEqual([1, 2, 3, 7, 11, 12]);
    expect((await registry.getSingleMetric('ragwatch_feedback_answers_skipped_total')!.get()).values[0]!.value).toBe(4);
  });

  it('evicts about one batch per flush near the bound, not 5 % of the table', () => {
    const db = new DatabaseSync(':memory:');
    const store = new FeedbackStore({ db, maxItems: 100, maxAnswers: 20_000 });
    const rows = () => (db.prepare('SELECT COUNT(*) AS n FROM feedback_answers').get() as { n: number }).n;
    for (let n = 0; n < 20_000; n++) store.addAnswer({ tripletId: `t${n}`, traceId: hex(n), spanId: 'a'.repeat(16), service: 'rag', judge: 'embedded', scores: { g: 0.5 }, createdMs: n });
    store.flush();
    expect(rows()).toBe(20_000);
    for (let n = 20_000; n < 20_010; n++) store.addAnswer({ tripletId: `t${n}`, traceId: hex(n), spanId: 'a'.repeat(16), service: 'rag', judge: 'embedded', scores: { g: 0.5 }, createdMs: n });
    store.flush();
    // 10 over the bound: those and one batch (256) go, the oldest first; 5 % would have been 1,000.
    expect(rows()).toBe(20_000 - 256);
    expect(store.answersOf(hex(265), undefined)).toHaveLength(0);
    expect(store.answersOf(hex(266), undefined)).toHaveLength(1);
  });
});

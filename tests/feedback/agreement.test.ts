/**
 * The users' agreement (AUC with DeLong's interval) against known answers: a small set worked by hand,
 * a simulation with a known AUC (binormal scores: AUC = Φ(d/√2)) whose 95 % intervals must cover it about
 * 95 % of the time, and the store's join rules (latest answer of a trace, latest feedback of an answer,
 * neutral feedback left out).
 */
import { describe, expect, it } from 'vitest';
import { DatabaseSync } from 'node:sqlite';
import { aucWithInterval } from '../../src/calibration/measures.ts';
import { FeedbackStore } from '../../src/feedback/feedback-store.ts';
import type { FeedbackAnswer, FeedbackItem } from '../../src/feedback/types.ts';
import { agreementRows } from '../../src/server/calibration-page.ts';
import { rng } from '../helpers/rng.ts';

describe('AUC with a DeLong interval', () => {
  it('is right on a set worked by hand', () => {
    // Good answers scored 0.9, 0.8, 0.4; bad ones 0.7, 0.3. Pairs won: 5 of 6 → AUC 5/6.
    // Placements: good [1, 1, 0.5] (var 1/12), bad [2/3, 1] (var 1/18) → Var = (1/12)/3 + (1/18)/2 = 1/18.
    const a = aucWithInterval([0.9, 0.8, 0.4, 0.7, 0.3], [1, 1, 1, 0, 0])!;
    expect(a.auc).toBeCloseTo(5 / 6, 12);
    expect(a).toMatchObject({ positives: 3, negatives: 2, level: 0.95 });
    const se = Math.sqrt(1 / 18);
    const logit = (p: number) => Math.log(p / (1 - p));
    const half = (1.959963984540054 * se) / ((5 / 6) * (1 / 6));
    expect(logit(a.lower!)).toBeCloseTo(logit(5 / 6) - half, 6);
    expect(logit(a.upper!)).toBeCloseTo(logit(5 / 6) + half, 6);
    expect(a.lower!).toBeGreaterThan(0);
    expect(a.upper!).toBeLessThan(1);
  });

  it('counts ties as one half, gives no interval at perfect separation, nothing with one class', () => {
    expect(aucWithInterval([0.5, 0.5], [1, 0])!.auc).toBe(0.5);
    expect(aucWithInterval([0.9, 0.8, 0.1], [1, 1, 0])).toMatchObject({ auc: 1, lower: null, upper: null });
    expect(aucWithInterval([0.9, 0.8], [1, 1])).toBeNull();
  });

  it('covers the true AUC about 95 % of the time on binormal scores with a known AUC', () => {
    const rand = rng(46);
    const normal = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
    // d = 1: AUC = Φ(1/√2) = 0.760249938…
    const truth = 0.7602499389065233;
    let covered = 0;
    let sum = 0;
    const runs = 400;
    for (let r = 0; r < runs; r++) {
      const scores: number[] = [];
      const labels: Array<0 | 1> = [];
      for (let i = 0; i < 60; i++) {
        scores.push(normal() + 1);
        labels.push(1);
        scores.push(normal());
        labels.push(0);
      }
      const a = aucWithInterval(scores, labels)!;
      sum += a.auc;
      if (a.lower! <= truth && truth <= a.upper!) covered++;
    }
    expect(sum / runs).toBeCloseTo(truth, 2);
    // Binomial(400, 0.95): 0.92–0.975 holds with probability > 0.99.
    expect(covered / runs).toBeGreaterThan(0.92);
    expect(covered / runs).toBeLessThan(0.975);
  });
});

describe("the users' labels joined to the judges' scores", () => {
  const answer = (tripletId: string, traceId: string, createdMs: number, groundedness: number, spanId = 'a'.repeat(16)): FeedbackAnswer => ({ tripletId, traceId, spanId, service: 's', judge: 'llm', scores: { groundedness }, createdMs });
  const item = (id: string, traceId: string, polarity: FeedbackItem['polarity'], createdMs: number, extra: Partial<FeedbackItem> = {}): FeedbackItem => ({ id, traceId, kind: 'thumbs', value: polarity === 'positive' ? 1 : 0, polarity, service: 's', source: 'api', createdMs, ...extra });

  it('labels the latest answer of a trace with its latest feedback; neutral feedback and unjoined feedback add nothing', () => {
    const store = new FeedbackStore({ db: new DatabaseSync(':memory:'), maxItems: 100, maxAnswers: 100 });
    const t = (n: number) => n.toString(16).padStart(32, '0');
    // Trace 1: two answers (a rewrite, then the final one): the final one (0.2) is labelled.
    store.addAnswer(answer('draft', t(1), 1, 0.95));
    store.addAnswer(answer('final', t(1), 2, 0.2));
    store.addFeedback(item('f1', t(1), 'negative', 10));
    // Trace 2: the user first said down, then up: up counts.
    store.addAnswer(answer('a2', t(2), 3, 0.9));
    store.addFeedback(item('f2a', t(2), 'negative', 11));
    store.addFeedback(item('f2b', t(2), 'positive', 12));
    // Trace 3: a rating of 3 (neutral): no label. Trace 4: feedback without a scored answer: no point.
    store.addAnswer(answer('a3', t(3), 4, 0.5));
    store.addFeedback(item('f3', t(3), 'neutral', 13, { kind: 'rating', value: 3 }));
    store.addFeedback(item('f4', t(4), 'positive', 14));
    // Trace 5: the feedback names its span: that answer, not the latest.
    store.addAnswer(answer('a5-named', t(5), 5, 0.85, 'b'.repeat(16)));
    store.addAnswer(answer('a5-later', t(5), 6, 0.1, 'c'.repeat(16)));
    store.addFeedback(item('f5', t(5), 'positive', 15, { spanId: 'b'.repeat(16) }));
    // By response id only.
    store.addAnswer({ ...answer('a6', t(6), 7, 0.3), responseId: 'chatcmpl-6' });
    const { traceId: _t, ...byResponse } = item('f6', t(6), 'negative', 16, { responseId: 'chatcmpl-6' });
    store.addFeedback(byResponse as FeedbackItem);
    const points = store.userPoints().sort((a, b) => a.tripletId.localeCompare(b.tripletId));
    expect(points.map((p) => [p.tripletId, p.score, p.label])).toEqual([
      ['a2', 0.9, 1],
      ['a5-named', 0.85, 1],
      ['a6', 0.3, 0],
      ['final', 0.2, 0],
    ]);
    // Good answers 0.9 and 0.85 above bad ones 0.3 and 0.2: perfect agreement; reviewers' AUC from their own points, beside it.
    const rows = agreementRows(points, (m) => (m === 'groundedness' ? [{ id: 'x', score: 0.9, label: 1 }, { id: 'y', score: 0.95, label: 0 }] : []));
    expect(rows).toEqual([expect.objectContaining({ metric: 'groundedness', judge: 'llm', users: expect.objectContaining({ auc: 1, positives: 2, negatives: 2 }), reviewers: expect.objectContaining({ auc: 0, positives: 1, negatives: 1 }) })]);
    // An id sent twice with the same content is one item; changed, it replaces the earlier one.
    expect(store.addFeedback(item('f4', t(4), 'positive', 14))).toBe('same');
    expect(store.addFeedback(item('f4', t(4), 'negative', 20))).toBe('updated');
    expect(store.count()).toBe(7);
  });

  it('keeps both tables bounded, evicting the oldest', () => {
    const store = new FeedbackStore({ db: new DatabaseSync(':memory:'), maxItems: 3, maxAnswers: 20 });
    for (let i = 0; i < 5; i++) store.addFeedback(item(`f${i}`, i.toString(16).padStart(32, '0'), 'positive', i));
    expect(store.count()).toBe(3);
    expect(store.items().map((f) => f.id)).toEqual(['f2', 'f3', 'f4']);
    for (let i = 0; i < 30; i++) store.addAnswer(answer(`a${i}`, i.toString(16).padStart(32, '0'), i, 0.5));
    store.flush();
    expect(store.answersOf((29).toString(16).padStart(32, '0'), undefined)).toHaveLength(1);
    expect(store.answersOf((0).toString(16).padStart(32, '0'), undefined)).toHaveLength(0);
  });
});

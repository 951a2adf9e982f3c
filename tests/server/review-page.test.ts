/**
 * Human review: the store's queue is stratified (undecidable first, then score bands in turn) and
 * bounded with counted eviction; `POST /api/labels` checks its input. A reviewer labelling with the
 * keyboard in headless Chromium: `pages.integration.test.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReviewStore, type ReviewItem } from '../../src/store/review-store.ts';
import { ReviewSink } from '../../src/store/review-sink.ts';
import { renderReviewPage } from '../../src/server/review-page.ts';
import { openDatabase } from '../../src/store/sqlite.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';
import { metricValue } from '../helpers/process.ts';
import { reviewPage, type PageFixture } from './page-fixtures.ts';

const dir = mkdtempSync(join(tmpdir(), 'ragwatch-review-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const item = (i: number, band: number, needsReview = false): ReviewItem => ({
  tripletId: `t${i}`, service: 's', judge: 'embedded', band, needsReview, createdMs: 1_000 + i, query: `q${i}`, response: `r${i}`, sources: [], scores: { grounding_lexical: band / 5 }, unsupported: [],
});

describe('ReviewStore', () => {
  it('queues undecidable answers first, then one per score band in turn (newest first), and skips labelled ones', async () => {
    const store = new ReviewStore({ db: await openDatabase(':memory:'), maxItems: 100, maxLabels: 100 });
    // Bands 4,4,4,0,0,2 (newest last) and one the calibration cannot decide.
    [item(1, 4), item(2, 4), item(3, 4), item(4, 0), item(5, 0), item(6, 2), item(7, 3, true)].forEach((x) => store.addItem(x));
    expect(store.queue(10).map((x) => x.tripletId)).toEqual(['t7', 't5', 't6', 't3', 't4', 't2', 't1']);
    store.addLabel({ tripletId: 't5', metric: 'groundedness', value: 1 });
    expect(store.queue(3).map((x) => x.tripletId)).toEqual(['t7', 't4', 't6']);
    await store.shutdown();
  });

  it('evicts the oldest unlabelled answers and the oldest labels at their limits, counted', async () => {
    const registry = new Registry();
    const store = new ReviewStore({ db: await openDatabase(':memory:'), maxItems: 3, maxLabels: 2, registry });
    store.addItem(item(1, 0));
    store.addLabel({ tripletId: 't1', metric: 'groundedness', value: 0, createdMs: 1 });
    for (let i = 2; i <= 5; i++) store.addItem(item(i, 1));
    // t1 is labelled (kept); of t2..t5 the two oldest went.
    expect(store.item('t1')).toBeDefined();
    expect(['t2', 't3', 't4', 't5'].filter((id) => store.item(id))).toEqual(['t4', 't5']);
    store.addLabel({ tripletId: 't4', metric: 'groundedness', value: 1, createdMs: 2 });
    store.addLabel({ tripletId: 't5', metric: 'groundedness', value: 1, createdMs: 3 });
    expect(store.labels().map((l) => l.tripletId)).toEqual(['t4', 't5']);
    const text = await registry.metrics();
    expect(metricValue(text, 'ragwatch_store_evictions_total', { table: 'review_items' })).toBe(2);
    expect(metricValue(text, 'ragwatch_store_evictions_total', { table: 'labels' })).toBe(1);
    expect(metricValue(text, 'ragwatch_store_rows', { table: 'labels' })).toBe(2);
    await store.shutdown();
  });
});

describe('review page and labels API', () => {
  let page: PageFixture;
  const dataDir = join(dir, 'data');
  beforeAll(async () => {
    page = await reviewPage(dataDir);
  });
  afterAll(() => page?.close());

  it('POST /api/labels: 401 without the token; 400/404/415 with the reason; 201 stored', async () => {
    const post = (body: unknown, headers: Record<string, string> = { authorization: `Bearer ${page.token}`, 'content-type': 'application/json' }) => fetch(`${page.base}/api/labels`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
    expect((await post({ tripletId: 'ans-0', metric: 'groundedness', value: 1 }, { 'content-type': 'application/json' })).status).toBe(401);
    const bad = await post({ tripletId: 'ans-0', metric: 'groundedness', value: 2 });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/^value:/);
    expect(((await (await post({ tripletId: 'ans-0', metric: 'tone', value: 1 })).json()) as { error: string }).error).toContain('metric must be one of: groundedness, answer_relevancy');
    expect((await post({ tripletId: 'nope', metric: 'groundedness', value: 1 })).status).toBe(404);
    expect((await post('tripletId=ans-0', { authorization: `Bearer ${page.token}`, 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(415);
    expect((await post({ tripletId: 'ans-4', metric: 'answer_relevancy', value: 1, reviewer: 'api' })).status).toBe(201);
    expect(page.quality.review!.labels('ans-4')).toMatchObject([{ metric: 'answer_relevancy', value: 1, reviewer: 'api' }]);
    // The HCAT risk and completeness concepts are labelled like the others (default calibration.labelMetrics).
    for (const metric of ['non_toxic', 'pii_free', 'completeness']) expect((await post({ tripletId: 'ans-4', metric, value: 1, reviewer: 'api' })).status, metric).toBe(201);
  });
});

/** A scored answer as the scorer hands it to the review sink. */
const scored = (id: string, nowMs: number): [ScoreRecord, SampledTriplet] => {
  const triplet: SampledTriplet = { id, traceId: 'a'.repeat(32), spanId: '0'.repeat(16), service: 'rag', timestamp: new Date(nowMs).toISOString(), query: 'q', sources: [], response: 'a', latency: { durationMs: 1 }, convention: 'custom', sampling: { weight: 1, stratum: 's', rule: 'r' } };
  const record: ScoreRecord = { tripletId: id, traceId: triplet.traceId, service: 'rag', stratum: 's', weight: 1, timestamp: triplet.timestamp, judge: { kind: 'embedded' }, scores: { grounding_lexical: 0.5 }, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [], unsupportedTokens: [] }, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 } };
  return [record, triplet];
};

describe('review sink rate', () => {
  it('offers at most store.maxReviewItemsPerSecond answers a second; the rest are counted, not kept', async () => {
    const registry = new Registry();
    const store = new ReviewStore({ db: await openDatabase(':memory:'), maxItems: 1000, maxLabels: 10, registry });
    let now = 1_000_000;
    const sink = new ReviewSink({ store, maxItemsPerSecond: 5, now: () => now });
    const offer = (i: number) => sink.onRecord(...scored(`r${i}`, now));
    for (let i = 0; i < 12; i++) offer(i);
    now += 1000;
    for (let i = 12; i < 15; i++) offer(i);
    expect(store.queue(100).map((x) => x.tripletId).sort()).toEqual(['r0', 'r1', 'r12', 'r13', 'r14', 'r2', 'r3', 'r4']);
    expect(metricValue(await registry.metrics(), 'ragwatch_store_review_skipped_total')).toBe(7);
  });

  it('keeps each answer’s trace id; the page links it to server.traceUrlTemplate, escaped', async () => {
    const store = new ReviewStore({ db: await openDatabase(':memory:'), maxItems: 10, maxLabels: 10 });
    new ReviewSink({ store }).onRecord(...scored('r1', Date.now()));
    const stored = store.queue(1)[0]!;
    expect(stored.traceId).toBe('a'.repeat(32));
    const html = renderReviewPage([stored], { questions: { groundedness: 'Grounded?' }, labelled: 0, nonce: 'n', traceUrlTemplate: 'https://tempo.example/explore?trace={traceId}&x="y"' });
    expect(html).toContain(`<a class="trace-link" href="https://tempo.example/explore?trace=${'a'.repeat(32)}&amp;x=&quot;y&quot;"`);
    expect(renderReviewPage([stored], { questions: {}, labelled: 0, nonce: 'n' })).toContain(`<code class="trace-id">${'a'.repeat(32)}</code>`);
  });
});

/**
 * Human review: the store's queue is stratified (undecidable first, then score bands in turn) and
 * bounded with counted eviction; `POST /api/labels` checks its input; and in real headless Chromium a
 * reviewer labels three answers with the keyboard, reloads, and the labels are in the SQLite file a
 * fresh store reads back — while the page without the token is refused.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { createInstruments } from '../../src/telemetry/instruments.ts';
import { QualityMonitor } from '../../src/roles/quality.ts';
import { instrumentsOptionsFromConfig } from '../../src/telemetry/instruments.ts';
import { createApiApp } from '../../src/server/api-app.ts';
import { listen, type RunningServer } from '../../src/roles/serve.ts';
import { openReviewStore } from '../../src/store/create.ts';
import { ReviewStore, type ReviewItem } from '../../src/store/review-store.ts';
import { ReviewSink } from '../../src/store/review-sink.ts';
import { openDatabase } from '../../src/store/sqlite.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';
import { silentLogger } from '../../src/log.ts';
import { haveBinaries, which } from '../helpers/prometheus.ts';
import { ROOT, metricValue } from '../helpers/process.ts';

const TOKEN = 'review-test-token-0123456789';
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
  let server: RunningServer;
  let quality: QualityMonitor;
  const dataDir = join(dir, 'data');
  const base = () => `http://127.0.0.1:${server.port}`;

  beforeAll(async () => {
    const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, store: { dataDir } } });
    const instruments = createInstruments(instrumentsOptionsFromConfig(config));
    const review = await openReviewStore(config, instruments.registry, silentLogger);
    quality = new QualityMonitor({ config, instruments, review: review! });
    for (let i = 0; i < 5; i++) {
      const triplet: SampledTriplet = {
        id: `ans-${i}`, traceId: `${i}`.padStart(32, 'a'), spanId: '0'.repeat(16), service: 'rag', timestamp: new Date().toISOString(),
        query: `Who founded company ${i}? <script>window.__pwned=1</script>`, sources: [{ id: `doc-${i}`, content: `Company ${i} was founded by Ada ${i}.` }],
        response: i % 2 === 0 ? `Ada ${i} founded it.` : `Grace ${i} founded it in 1850.`, latency: { durationMs: 1 }, convention: 'custom', sampling: { weight: 1, stratum: 's', rule: 'r' },
      };
      const record: ScoreRecord = {
        tripletId: triplet.id, traceId: triplet.traceId, service: 'rag', stratum: 's', weight: 1, timestamp: triplet.timestamp, judge: { kind: 'embedded' },
        scores: { grounding_lexical: i % 2 === 0 ? 1 : 0.3 }, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [], unsupportedTokens: i % 2 === 0 ? [] : ['Grace', '1850'] },
        diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 },
      };
      quality.onRecord(record, triplet);
    }
    server = await listen(createApiApp({ registry: instruments.registry, ready: () => true, quality, auth: { host: '127.0.0.1', apiToken: TOKEN } }), '127.0.0.1', 0);
  });
  afterAll(async () => {
    await server?.close();
    await quality?.shutdown();
  });

  it('POST /api/labels: 401 without the token; 400/404/415 with the reason; 201 stored', async () => {
    const post = (body: unknown, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }) => fetch(`${base()}/api/labels`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
    expect((await post({ tripletId: 'ans-0', metric: 'groundedness', value: 1 }, { 'content-type': 'application/json' })).status).toBe(401);
    const bad = await post({ tripletId: 'ans-0', metric: 'groundedness', value: 2 });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/^value:/);
    expect(((await (await post({ tripletId: 'ans-0', metric: 'tone', value: 1 })).json()) as { error: string }).error).toContain('metric must be one of: groundedness, answer_relevancy');
    expect((await post({ tripletId: 'nope', metric: 'groundedness', value: 1 })).status).toBe(404);
    expect((await post('tripletId=ans-0', { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(415);
    expect((await post({ tripletId: 'ans-4', metric: 'answer_relevancy', value: 1, reviewer: 'api' })).status).toBe(201);
    expect(quality.review!.labels('ans-4')).toMatchObject([{ metric: 'answer_relevancy', value: 1, reviewer: 'api' }]);
    // The HCAT risk and completeness concepts are labelled like the others (default calibration.labelMetrics).
    for (const metric of ['non_toxic', 'pii_free', 'completeness']) expect((await post({ tripletId: 'ans-4', metric, value: 1, reviewer: 'api' })).status, metric).toBe(201);
  });

  describe.skipIf(!haveBinaries('review page in Chromium', 'chromium'))('in headless Chromium', () => {
    let browser: BrowserContext | undefined;
    const profile = mkdtempSync(join(tmpdir(), 'ragwatch-chromium-review-'));
    afterAll(async () => {
      await browser?.close();
      rmSync(profile, { recursive: true, force: true });
    });

    it('labels three answers with the keyboard; after a reload they are counted and in the database', async () => {
      const executablePath = existsSync('/usr/lib/chromium/chromium') ? '/usr/lib/chromium/chromium' : which('chromium')!;
      browser = await chromium.launchPersistentContext(profile, { executablePath, headless: true, viewport: { width: 1000, height: 800 }, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'] });
      const page = await browser.newPage();
      expect((await page.goto(`${base()}/review`))?.status()).toBe(401);
      await page.locator('input[name="token"]').fill(TOKEN);
      const [res] = await Promise.all([page.waitForNavigation(), page.locator('button[type="submit"]').click()]);
      expect(res?.status()).toBe(200);
      const ids = await page.locator('article').evaluateAll((els) => els.map((e) => (e as unknown as { dataset: { tripletId: string } }).dataset.tripletId));
      expect(ids).toHaveLength(4); // ans-4 is already labelled
      // Answer 1: y, n (two questions); answer 2: n, u; answer 3: y, y.
      for (const key of ['y', 'n', 'n', 'u', 'y', 'y']) {
        const saved = key === 'u' ? Promise.resolve() : page.waitForResponse((r) => r.url().endsWith('/api/labels') && r.status() === 201);
        await page.keyboard.press(key);
        await saved;
      }
      expect(await page.locator('#progress').innerText()).toBe('3 / 4');
      expect(await page.locator('article.done').count()).toBe(3);
      expect(await page.locator('article script').count()).toBe(0);
      mkdirSync(join(ROOT, 'tests/.artifacts'), { recursive: true });
      await page.screenshot({ path: join(ROOT, 'tests/.artifacts/review-page.png'), fullPage: true });
      await page.reload();
      expect(await page.locator('article').count()).toBe(1);
      expect(await page.locator('body').innerText()).toContain('answers labelled in total: 4');
      // Straight from the SQLite file, through a second connection.
      const again = new ReviewStore({ db: await openDatabase(join(dataDir, 'ragwatch.sqlite')), maxItems: 100, maxLabels: 100 });
      const labels = again.labels().filter((l) => l.reviewer === undefined);
      expect(labels.map((l) => [l.tripletId, l.metric, l.value])).toEqual([
        [ids[0], 'groundedness', 1],
        [ids[0], 'answer_relevancy', 0],
        [ids[1], 'groundedness', 0],
        [ids[2], 'groundedness', 1],
        [ids[2], 'answer_relevancy', 1],
      ]);
      await again.shutdown();
    }, 60_000);
  });
});

describe('review sink rate', () => {
  it('offers at most store.maxReviewItemsPerSecond answers a second; the rest are counted, not kept', async () => {
    const registry = new Registry();
    const store = new ReviewStore({ db: await openDatabase(':memory:'), maxItems: 1000, maxLabels: 10, registry });
    let now = 1_000_000;
    const sink = new ReviewSink({ store, maxItemsPerSecond: 5, now: () => now });
    const offer = (i: number) => {
      const triplet: SampledTriplet = { id: `r${i}`, traceId: 'a'.repeat(32), spanId: '0'.repeat(16), service: 'rag', timestamp: new Date(now).toISOString(), query: 'q', sources: [], response: 'a', latency: { durationMs: 1 }, convention: 'custom', sampling: { weight: 1, stratum: 's', rule: 'r' } };
      const record: ScoreRecord = { tripletId: triplet.id, traceId: triplet.traceId, service: 'rag', stratum: 's', weight: 1, timestamp: triplet.timestamp, judge: { kind: 'embedded' }, scores: { grounding_lexical: 0.5 }, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [], unsupportedTokens: [] }, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 } };
      sink.onRecord(record, triplet);
    };
    for (let i = 0; i < 12; i++) offer(i);
    now += 1000;
    for (let i = 12; i < 15; i++) offer(i);
    expect(store.queue(100).map((x) => x.tripletId).sort()).toEqual(['r0', 'r1', 'r12', 'r13', 'r14', 'r2', 'r3', 'r4']);
    expect(metricValue(await registry.metrics(), 'ragwatch_store_review_skipped_total')).toBe(7);
  });
});

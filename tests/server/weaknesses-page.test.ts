/**
 * `/weaknesses`: behind the token; the flagged cells first with links to their worst answers; per
 * question type (and topic, once fitted) each metric's weighted mean, coloured by its threshold,
 * outlined when flagged, faded under weakness.minCount answers; escaped; a Chromium screenshot for the docs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { createInstruments } from '../../src/telemetry/instruments.ts';
import { QualityMonitor } from '../../src/roles/quality.ts';
import { instrumentsOptionsFromConfig } from '../../src/telemetry/instruments.ts';
import { createApiApp } from '../../src/server/api-app.ts';
import { openReviewStore } from '../../src/store/create.ts';
import { silentLogger } from '../../src/log.ts';
import { listen, type RunningServer } from '../../src/roles/serve.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';
import { inChromium } from '../helpers/chromium.ts';
import { haveBinaries } from '../helpers/prometheus.ts';

const TOKEN = 'weaknesses-page-token-0123456789';

describe('/weaknesses', () => {
  let server: RunningServer;
  let quality: QualityMonitor;
  beforeAll(async () => {
    const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, weakness: { topics: false } } });
    const instruments = createInstruments(instrumentsOptionsFromConfig(config));
    quality = new QualityMonitor({ config, instruments, weaknessCacheMs: 0 });
    let n = 0;
    const feed = (query: string, score: number, times: number) => {
      for (let i = 0; i < times; i++) {
        const id = `w${n++}`;
        const t = { id, traceId: `${n}`.padStart(32, '6'), spanId: '0'.repeat(16), service: 'rag', timestamp: new Date().toISOString(), query, sources: [], response: 'r', latency: { durationMs: 1 }, convention: 'custom', sampling: { weight: 1, stratum: 's', rule: 'r' } } as SampledTriplet;
        quality.onRecord({ tripletId: id, traceId: t.traceId, service: 'rag', stratum: 's', weight: 1, timestamp: t.timestamp, judge: { kind: 'embedded' }, scores: { grounding_lexical: score }, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 } } as ScoreRecord, t);
      }
    };
    feed('Who founded Acme?', 0.5, 25);
    feed('When was Acme founded?', 0.95, 30);
    feed('Why is the sky blue? <b>x</b>', 0.9, 3);
    server = await listen(createApiApp({ registry: instruments.registry, ready: () => true, quality, auth: { host: '127.0.0.1', apiToken: TOKEN } }), '127.0.0.1', 0);
  });
  afterAll(async () => {
    await server?.close();
    await quality?.shutdown();
  });

  it('shows each question type\'s mean: red below the threshold, faded when few', async () => {
    const url = `http://127.0.0.1:${server.port}/weaknesses`;
    expect((await fetch(url)).status).toBe(401);
    const html = await (await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    const row = (type: string) => new RegExp(`<th scope="row">${type}</th><td(?: class="([^"]+)")? style="background:hsl\\((\\d+)[^"]*"[^>]*>([\\d.]+)`).exec(html);
    // who: 0.50 < threshold 0.80 (red hue 0), flagged against the rest (0.95); when: above (green); why: too few answers (faded).
    expect(row('who')?.slice(1)).toEqual(['flag', '0', '0.50']);
    expect(row('when')?.[1]).toBeUndefined();
    expect(Number(row('when')?.[2])).toBeGreaterThan(90);
    expect(row('when')?.[3]).toBe('0.95');
    expect(row('why')?.slice(1, 2)).toEqual(['few']);
    expect(html).toMatch(/<li><b>grounding_lexical<\/b> <span class="meta">embedded<\/span> on question type who: <b>0\.50<\/b> \[0\.50, 0\.50\], n = 25; the rest 0\.95 <a href="examples\?metric=grounding_lexical&amp;ids=w\d+,w\d+,w\d+">worst answers<\/a><\/li>/);
    const { examples } = (await (await fetch(`http://127.0.0.1:${server.port}/api/examples?ids=w0,w1,w30`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as { examples: Array<{ record: { tripletId: string } }> };
    expect(examples.map((e) => e.record.tripletId).sort()).toEqual(['w0', 'w1']);
    expect(html).toContain('Topics appear once weakness.warmupQueries questions were seen');
    expect(html).not.toContain('<b>x</b>');
  });

  it.skipIf(!haveBinaries('weaknesses page screenshot', 'chromium'))('renders in headless Chromium', async () => {
    await inChromium({ url: `http://127.0.0.1:${server.port}/weaknesses`, token: TOKEN, width: 800, height: 420, screenshot: 'weaknesses-page.png' }, async (page) => {
      expect(await page.locator('td.flag').count()).toBe(1);
      expect(await page.locator('ol.flags li').count()).toBe(1);
    });
  }, 60_000);
});

/** Questions of four topics; the refund ones answered badly when they ask "how". */
const TOPICS: Record<string, string[]> = {
  refund: ['How do I get a refund for my order?', 'When will my refund arrive?', 'Why was my refund declined?', 'How long does a refund take to process?', 'Where do I request a refund?', 'How can I get my money back after a return?', 'Is a refund possible for a damaged item?', 'How do refunds for gift cards work?'],
  shipping: ['How long does shipping to Canada take?', 'Which courier delivers my parcel?', 'Can I track my shipment?', 'What does express shipping cost?', 'Do you ship parcels to Norway?', 'Why is my parcel delivery late?', 'How do I change the shipping address?', 'Is shipping free above 50 euros?'],
  password: ['How do I reset my password?', 'Why is my password rejected?', 'Can I change my password on mobile?', 'How long must a password be?', 'What happens after five wrong passwords?', 'Is two-factor login available?', 'Who can see my password?', 'When does a password reset link expire?'],
  invoice: ['Where can I download my invoice?', 'Why is VAT missing on my invoice?', 'How do I change the company name on an invoice?', 'When is the invoice sent?', 'Can I get an invoice in English?', 'Who issues the invoice for marketplace orders?', 'How are invoice numbers assigned?', 'What currency is my invoice in?'],
};

describe('/weaknesses with live topics', () => {
  it('fits topics from the traffic, flags the planted refund × how cell first with its worst answers, and draws the heat map and box plots', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ragwatch-weak-topics-'));
    const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, store: { dataDir: dir }, weakness: { topicCount: 4, warmupQueries: 32 }, judge: { embedded: { threads: 1 } } } });
    const instruments = createInstruments(instrumentsOptionsFromConfig(config));
    const review = await openReviewStore(config, instruments.registry, silentLogger);
    const quality = new QualityMonitor({ config, instruments, weaknessCacheMs: 0, ...(review ? { review } : {}) });
    let n = 0;
    const feed = (query: string, score: number) => {
      const id = `p${n++}`;
      const t = { id, traceId: `${n}`.padStart(32, '8'), spanId: '0'.repeat(16), service: 'rag', timestamp: new Date().toISOString(), query, sources: [{ content: 'Refunds take 14 days.' }], response: 'It takes 30 days.', latency: { durationMs: 1 }, convention: 'custom', sampling: { weight: 1, stratum: 's', rule: 'r' } } as SampledTriplet;
      quality.onRecord({ tripletId: id, traceId: t.traceId, service: 'rag', stratum: 's', weight: 1, timestamp: t.timestamp, judge: { kind: 'embedded' }, scores: { grounding_lexical: score, context_relevancy: 0.5 + (n % 5) / 20 }, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 } } as ScoreRecord, t);
    };
    const all = Object.values(TOPICS).flat();
    for (const q of all) feed(q, 0.9);
    await quality.weakness.forceFlush();
    expect(quality.topics!.model?.labels).toHaveLength(4);
    for (let round = 0; round < 8; round++) {
      for (const q of all) feed(q, TOPICS.refund!.includes(q) && q.startsWith('How') ? 0.35 + (round % 3) / 20 : 0.85 + ((n * 7) % 13) / 100);
    }
    await quality.weakness.forceFlush();
    const server = await listen(createApiApp({ registry: instruments.registry, ready: () => true, quality, auth: { host: '127.0.0.1', apiToken: TOKEN } }), '127.0.0.1', 0);
    try {
      const html = await (await fetch(`http://127.0.0.1:${server.port}/weaknesses`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
      const first = /<ol class="flags"><li>(.*?)<\/li>/.exec(html)?.[1] ?? '';
      expect(first).toMatch(/^<b>grounding_lexical<\/b> <span class="meta">embedded<\/span> on topic &quot;[^&]*refund[^&]*&quot; × question type how: <b>0\.[34]\d<\/b>/);
      expect(first).toMatch(/ids=p\d+,p\d+,p\d+">worst answers/);
      expect(html).toContain('grounding_lexical (embedded): topic × question type');
      expect(html).toContain('<svg role="img" aria-label="box plot per topic"');
      if (haveBinaries('weaknesses page screenshot with topics', 'chromium')) {
        await inChromium({ url: `http://127.0.0.1:${server.port}/weaknesses`, token: TOKEN, width: 1000, height: 700, screenshot: 'weaknesses-page-topics.png' }, async (page) => {
          expect(await page.locator('table.heat td.flag').count()).toBeGreaterThanOrEqual(1);
        });
      }
    } finally {
      await server.close();
      await quality.shutdown();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});

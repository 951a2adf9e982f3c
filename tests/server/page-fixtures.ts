/**
 * The pages' test fixtures, shared by the HTML tests (`*-page.test.ts`, `npm test`) and the headless
 * Chromium tests (`pages.integration.test.ts`): each starts an API app on a free loopback port over a
 * quality monitor fed known answers, behind a token.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Registry } from 'prom-client';
import { expect } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { QualityMonitor } from '../../src/roles/quality.ts';
import { listen } from '../../src/roles/serve.ts';
import { createApiApp } from '../../src/server/api-app.ts';
import { openReviewStore } from '../../src/store/create.ts';
import { createInstruments, instrumentsOptionsFromConfig } from '../../src/telemetry/instruments.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';

/** A page server: its base URL, the token, the monitor behind it; `close()` stops both. */
export interface PageFixture {
  base: string;
  token: string;
  quality: QualityMonitor;
  close(): Promise<void>;
}

async function serve(quality: QualityMonitor, registry: Registry, token: string, cleanup: () => void = () => undefined): Promise<PageFixture> {
  const server = await listen(createApiApp({ registry, ready: () => true, quality, auth: { host: '127.0.0.1', apiToken: token } }), '127.0.0.1', 0);
  let closed: Promise<void> | undefined;
  return {
    base: `http://127.0.0.1:${server.port}`,
    token,
    quality,
    close: () =>
      (closed ??= (async () => {
        await server.close();
        await quality.shutdown();
        cleanup();
      })()),
  };
}

/** `/calibration`: 800 labelled answers whose true P(good) is score³, refitted. */
export async function calibrationPage(): Promise<PageFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'ragwatch-calpage-'));
  const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, store: { dataDir: dir, maxReviewItemsPerSecond: 1e9 } } });
  const instruments = createInstruments(instrumentsOptionsFromConfig(config));
  const review = (await openReviewStore(config, instruments.registry, silentLogger))!;
  const quality = new QualityMonitor({ config, instruments, review });
  let seed = 5;
  const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  for (let i = 0; i < 800; i++) {
    const s = rand();
    const id = `a${i}`;
    const triplet = { id, traceId: `${i}`.padStart(32, '2'), spanId: '0'.repeat(16), service: 'rag', timestamp: new Date().toISOString(), query: 'q', sources: [{ content: 'c' }], response: 'r', latency: { durationMs: 1 }, convention: 'custom', sampling: { weight: 1, stratum: 's', rule: 'r' } } as SampledTriplet;
    const record = { tripletId: id, traceId: triplet.traceId, service: 'rag', stratum: 's', weight: 1, timestamp: triplet.timestamp, judge: { kind: 'embedded' }, scores: { grounding_lexical: s }, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 } } as ScoreRecord;
    quality.onRecord(record, triplet);
    review.addLabel({ tripletId: id, metric: 'groundedness', value: rand() < s ** 3 ? 1 : 0 });
  }
  await quality.refitter!.refit();
  return serve(quality, instruments.registry, 'calibration-page-token-0123456789', () => rmSync(dir, { recursive: true, force: true }));
}

/** `/weaknesses` without topics: "who" questions at 0.50 (flagged), "when" at 0.95, three "why" (too few). */
export async function weaknessesPage(): Promise<PageFixture> {
  const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, weakness: { topics: false } } });
  const instruments = createInstruments(instrumentsOptionsFromConfig(config));
  const quality = new QualityMonitor({ config, instruments, weaknessCacheMs: 0 });
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
  return serve(quality, instruments.registry, 'weaknesses-page-token-0123456789');
}

/** Questions of four topics; the refund ones answered badly when they ask "how". */
export const TOPICS: Record<string, string[]> = {
  refund: ['How do I get a refund for my order?', 'When will my refund arrive?', 'Why was my refund declined?', 'How long does a refund take to process?', 'Where do I request a refund?', 'How can I get my money back after a return?', 'Is a refund possible for a damaged item?', 'How do refunds for gift cards work?'],
  shipping: ['How long does shipping to Canada take?', 'Which courier delivers my parcel?', 'Can I track my shipment?', 'What does express shipping cost?', 'Do you ship parcels to Norway?', 'Why is my parcel delivery late?', 'How do I change the shipping address?', 'Is shipping free above 50 euros?'],
  password: ['How do I reset my password?', 'Why is my password rejected?', 'Can I change my password on mobile?', 'How long must a password be?', 'What happens after five wrong passwords?', 'Is two-factor login available?', 'Who can see my password?', 'When does a password reset link expire?'],
  invoice: ['Where can I download my invoice?', 'Why is VAT missing on my invoice?', 'How do I change the company name on an invoice?', 'When is the invoice sent?', 'Can I get an invoice in English?', 'Who issues the invoice for marketplace orders?', 'How are invoice numbers assigned?', 'What currency is my invoice in?'],
};

/** `/weaknesses` with live topics fitted from the traffic: the refund × how cell answered badly. */
export async function weaknessesTopicsPage(): Promise<PageFixture> {
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
  return serve(quality, instruments.registry, 'weaknesses-page-token-0123456789', () => rmSync(dir, { recursive: true, force: true }));
}

/** `/review` and `/api/labels`: five answers, the odd ones ungrounded, with markup in the questions; the store under `dataDir`. */
export async function reviewPage(dataDir: string): Promise<PageFixture> {
  const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, store: { dataDir } } });
  const instruments = createInstruments(instrumentsOptionsFromConfig(config));
  const review = await openReviewStore(config, instruments.registry, silentLogger);
  const quality = new QualityMonitor({ config, instruments, review: review! });
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
  return serve(quality, instruments.registry, 'review-test-token-0123456789');
}

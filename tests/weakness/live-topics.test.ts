/**
 * Live topics in a scoring role: after the warm-up the topics are fitted and every scored answer lands
 * in its topic's series (the refund topic's low scores show there); the model is kept in the store, so a
 * restart assigns at once with the same ids and names; a full queue drops (counted), never blocks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { createInstruments } from '../../src/telemetry/instruments.ts';
import { QualityMonitor } from '../../src/roles/quality.ts';
import { instrumentsOptionsFromConfig } from '../../src/telemetry/instruments.ts';
import { openReviewStore } from '../../src/store/create.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';
import { metricValue } from '../helpers/process.ts';

const dir = mkdtempSync(join(tmpdir(), 'ragwatch-live-topics-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const REFUND = ['How do I get a refund for my order?', 'Can I get my money back after a refund request?', 'When will my refund arrive?', 'Why was my refund declined?', 'Is a refund possible for a damaged item?', 'How long does a refund take to process?', 'Where do I request a refund?', 'Do you refund shipping fees when I return an item?'];
const OTHER = ['How long does shipping to Canada take?', 'Which courier delivers my parcel?', 'Can I track my shipment?', 'What does express shipping cost?', 'Do you ship parcels to Norway?', 'Why is my parcel delivery late?', 'Can I change the shipping address of my parcel?', 'Is shipping free above 50 euros?', 'How do I reset my password?', 'I forgot my password, what now?', 'Why is my password rejected?', 'Can I change my password on mobile?', 'How long must a password be?', 'Is two-factor login available besides the password?', 'My password reset email never came.', 'Can support see my password?'];

async function monitor(maxPending = 2_000, dataDir = dir) {
  const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, store: { dataDir }, weakness: { topicCount: 3, warmupQueries: 24, maxPending }, judge: { embedded: { threads: 1 } } } });
  const instruments = createInstruments(instrumentsOptionsFromConfig(config));
  const review = (await openReviewStore(config, instruments.registry, silentLogger))!;
  const logs: Array<Record<string, unknown>> = [];
  const logger = { ...silentLogger, warn: (o: Record<string, unknown>) => void logs.push(o), info: () => undefined };
  return { quality: new QualityMonitor({ config, instruments, review, weaknessCacheMs: 0, logger: logger as typeof silentLogger }), text: () => instruments.registry.metrics(), logs };
}

const WEATHER = ['Will it rain in Paris tomorrow?', 'What is the weather forecast for the weekend?', 'How hot will it be in Madrid on Friday?', 'Is a thunderstorm expected tonight?', 'Will it snow in the Alps this week?', 'How strong will the wind be at the coast?', 'Is there a heatwave warning for Rome?', 'What will the temperature be in Oslo tomorrow morning?', 'Should I expect fog on the motorway tonight?', 'When will the rain stop in London?', 'Is it going to be sunny on Sunday?', 'How much rain fell in Berlin yesterday?', 'Will there be frost overnight in the valley?', 'What is the humidity forecast for Singapore?', 'Are hurricanes expected in Florida this month?', 'Will the storm reach the north of Scotland?'];
const REFUND_AGAIN = ['Please refund my cancelled order.', 'I want a refund for the broken blender.', 'The refund for my return is missing.', 'Could the refund go to a different card?', 'What happens to my refund if I lose the receipt?', 'My refund shows as pending for two weeks.', 'Was the refund for order 5531 approved?', 'Can a gift be refunded to the buyer?'];

let n = 0;
function feed(quality: QualityMonitor, query: string, score: number) {
  const id = `a${n++}`;
  const t = { id, traceId: `${n}`.padStart(32, '5'), spanId: '0'.repeat(16), service: 'rag', timestamp: new Date().toISOString(), query, sources: [], response: 'r', latency: { durationMs: 1 }, convention: 'custom', sampling: { weight: 1, stratum: 's', rule: 'r' } } as SampledTriplet;
  quality.onRecord({ tripletId: id, traceId: t.traceId, service: 'rag', stratum: 's', weight: 1, timestamp: t.timestamp, judge: { kind: 'embedded' }, scores: { grounding_lexical: score }, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 } } as ScoreRecord, t);
}

describe('live topics', () => {
  it('fit after the warm-up, break every metric down by topic, and survive a restart', async () => {
    const first = await monitor();
    for (const q of [...REFUND, ...OTHER]) feed(first.quality, q, 0.9);
    await first.quality.topics!.flush();
    const model = first.quality.topics!.model!;
    expect(model.labels).toHaveLength(3);
    const refundTopic = model.labels.findIndex((l) => l.includes('refund'));
    expect(refundTopic).toBeGreaterThanOrEqual(0);
    for (const q of REFUND) feed(first.quality, q, 0.3);
    for (const q of OTHER) feed(first.quality, q, 0.9);
    await first.quality.topics!.flush();
    const text = await first.text();
    expect(metricValue(text, 'ragwatch_topic_info', { topic: `t${refundTopic}` })).toBe(1);
    expect(metricValue(text, 'ragwatch_score_by_topic_mean_ratio', { metric: 'grounding_lexical', topic: `t${refundTopic}` })).toBeLessThan(0.5);
    await first.quality.shutdown();

    const second = await monitor();
    expect(second.quality.topics!.model?.labels).toEqual(model.labels);
    feed(second.quality, 'Why was my refund declined?', 0.2);
    await second.quality.topics!.flush();
    expect(metricValue(await second.text(), 'ragwatch_score_by_topic_mean_ratio', { topic: `t${refundTopic}` })).toBeCloseTo(0.2, 12);
    await second.quality.shutdown();
  }, 60_000);

  it('drops (counted) beyond weakness.maxPending instead of growing', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'ragwatch-live-topics-drop-'));
    const m = await monitor(5, fresh);
    // The warm-up's queue has the same bound: questions arrive a few per batch.
    const warm = [...REFUND, ...OTHER];
    for (let i = 0; i < warm.length; i += 4) {
      for (const q of warm.slice(i, i + 4)) feed(m.quality, q, 0.9);
      await m.quality.topics!.flush();
    }
    expect(m.quality.topics!.model).toBeDefined();
    for (let i = 0; i < 8; i++) feed(m.quality, `question ${i}?`, 0.5);
    expect(metricValue(await m.text(), 'ragwatch_topic_dropped_total')).toBe(3);
    await m.quality.shutdown();
    rmSync(fresh, { recursive: true, force: true });
  }, 60_000);

  it('re-clusters when questions drift away, keeping the id of the topic that persisted and saying what changed', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'ragwatch-live-topics-drift-'));
    const m = await monitor(2_000, fresh);
    for (const q of [...REFUND, ...OTHER]) feed(m.quality, q, 0.9);
    await m.quality.topics!.flush();
    const before = m.quality.topics!.model!;
    const refund = before.labels.findIndex((l) => l.includes('refund'));
    for (let i = 0; i < WEATHER.length; i++) {
      feed(m.quality, WEATHER[i]!, 0.9);
      if (i < REFUND_AGAIN.length) feed(m.quality, REFUND_AGAIN[i]!, 0.9);
    }
    await m.quality.topics!.flush();
    const after = m.quality.topics!.model!;
    const text = await m.text();
    expect(metricValue(text, 'ragwatch_topic_refits_total', { reason: 'drift' })).toBe(1);
    expect(after.generation).toBe(2);
    expect(after.labels[refund]).toContain('refund');
    expect(after.labels.some((l, i) => i !== refund && /weather|rain|forecast|snow|storm|temperature/.test(l))).toBe(true);
    const log = m.logs.find((l) => Array.isArray(l.replaced));
    expect(log?.kept).toContain(`t${refund} ${after.labels[refund]}`);
    expect((log?.replaced as string[]).length).toBeGreaterThan(0);
    // The weather questions fell in `other` before the re-clustering; now they have topics of their own.
    feed(m.quality, 'Will it hail in Munich on Saturday?', 0.4);
    await m.quality.topics!.flush();
    expect(metricValue(await m.text(), 'ragwatch_topic_other_ratio')).toBeLessThan(0.5);
    await m.quality.shutdown();
    rmSync(fresh, { recursive: true, force: true });
  }, 60_000);
});

/**
 * Stratified sampling by question topic (HCAT §2): with a quota per topic, a niche topic (5 % of the
 * traffic) is judged as often as the dominant one, and the weights 1/p still estimate each topic's
 * true volume; without a topic model every triplet falls in `other`; the word topic costs microseconds.
 */
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../src/config/load.ts';
import { createSampler } from '../../src/sampling/create.ts';
import { StratifiedSampler } from '../../src/sampling/stratified.ts';
import { SamplingTopics } from '../../src/weakness/sampling-topics.ts';
import type { TopicModel } from '../../src/weakness/topics.ts';
import { tripletOf } from './fixtures.ts';

const MODEL: TopicModel = { centroids: [[1, 0], [0, 1]], labels: ['refund order', 'password reset'], keywords: [{ refund: 0.4, order: 0.2, money: 0.1 }, { password: 0.5, reset: 0.3, login: 0.1 }], generation: 1 };

describe('sampling strata by topic', () => {
  it('judges a niche topic as often as a dominant one, with unbiased weights', () => {
    const topics = new SamplingTopics(() => MODEL);
    const sampler = new StratifiedSampler({ by: 'topic', topicOf: topics.topicOf, eachQuotaPerMinute: 40, defaultRate: 0.1 });
    const judged = new Map<string, number>();
    const weight = new Map<string, number>();
    const truth = new Map<string, number>();
    let seed = 0;
    // Five minutes of steady traffic: 950 refund and 50 password questions a minute.
    for (let minute = 0; minute < 5; minute++) {
      for (let i = 0; i < 1_000; i++) {
        const query = i % 20 === 0 ? 'How do I reset my password?' : 'Where is the refund for my order?';
        const t = tripletOf(seed++, { query });
        const d = sampler.shouldSample(t, minute * 60_000 + i * 50);
        const stratum = sampler.stratumOf(t);
        if (minute === 0) continue; // the quota's rate estimate needs one minute of history
        truth.set(stratum, (truth.get(stratum) ?? 0) + 1);
        if (!d.sampled) continue;
        judged.set(stratum, (judged.get(stratum) ?? 0) + 1);
        weight.set(stratum, (weight.get(stratum) ?? 0) + d.sampling.weight);
      }
    }
    expect([...truth.keys()].sort()).toEqual(['t0', 't1']);
    // Each topic's quota: 40 a minute × 4 minutes (the niche one has only 50 a minute, so it is judged at ~80 %).
    expect(judged.get('t0')).toBeGreaterThan(140);
    expect(judged.get('t0')).toBeLessThanOrEqual(160);
    expect(judged.get('t1')).toBeGreaterThan(120);
    for (const s of ['t0', 't1']) expect(Math.abs(weight.get(s)! / truth.get(s)! - 1), s).toBeLessThan(0.1);
  });

  it('puts every triplet in other until a topic model is known, and is wired through the sampling config', () => {
    const topics = new SamplingTopics();
    const config = { ...defaultConfig().sampling, strata: { ...defaultConfig().sampling.strata, by: 'topic' as const, eachQuotaPerMinute: 10 } };
    const sampler = createSampler(config, { topicOf: topics.topicOf });
    const before = sampler.shouldSample(tripletOf(1, { query: 'refund please' }), 0);
    expect(before.sampled && before.sampling.stratum).toBe('other');
    topics.offer(MODEL);
    const after = sampler.shouldSample(tripletOf(2, { query: 'refund please' }), 0);
    expect(after.sampled && after.sampling.stratum).toBe('t0');
    // A later generation wins; an older one does not.
    topics.offer({ ...MODEL, keywords: [MODEL.keywords![1]!, MODEL.keywords![0]!], generation: 2 });
    expect(topics.topicOf('refund please')).toBe('t1');
    topics.offer(MODEL);
    expect(topics.topicOf('refund please')).toBe('t1');
  });

  it('costs microseconds per triplet', () => {
    const model = { ...MODEL, keywords: Array.from({ length: 12 }, (_, i) => Object.fromEntries(Array.from({ length: 30 }, (_, j) => [`w${i}x${j}`, 0.1]))) };
    const topics = new SamplingTopics(() => model);
    const q = 'Can I get my money back for the order I returned last week with the broken screen?';
    const n = 20_000;
    const start = performance.now();
    for (let i = 0; i < n; i++) topics.topicOf(q);
    expect(((performance.now() - start) * 1_000) / n).toBeLessThan(50);
  });
});

import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaultConfig, loadConfig } from '../../src/config/load.ts';
import { ScoringBudget } from '../../src/sampling/budget.ts';
import { createSampler } from '../../src/sampling/create.ts';
import { RateSampler } from '../../src/sampling/rate.ts';
import { RulesSampler } from '../../src/sampling/rules.ts';
import { StratifiedSampler } from '../../src/sampling/stratified.ts';
import { traceIdOf, tripletOf } from './fixtures.ts';

const N = 20_000;

describe('deterministic rate sampling', () => {
  it('samples close to the rate, and lower rates nest inside higher ones', () => {
    const low = new RateSampler(0.1);
    const high = new RateSampler(0.3);
    let nLow = 0;
    let nHigh = 0;
    for (let i = 0; i < N; i++) {
      const t = tripletOf(i);
      const a = low.shouldSample(t).sampled;
      const b = high.shouldSample(t).sampled;
      if (a) nLow++;
      if (b) nHigh++;
      if (a) expect(b).toBe(true);
    }
    expect(nLow / N).toBeGreaterThan(0.09);
    expect(nLow / N).toBeLessThan(0.11);
    expect(nHigh / N).toBeGreaterThan(0.28);
    expect(nHigh / N).toBeLessThan(0.32);
  });

  it('gives the same decision for the same traceId in another process', () => {
    const ids = Array.from({ length: 2_000 }, (_, i) => traceIdOf(i));
    const module = fileURLToPath(new URL('../../src/sampling/stratified.ts', import.meta.url));
    const script = `
      const { StratifiedSampler } = await import(${JSON.stringify(module)});
      const s = new StratifiedSampler({ defaultRate: 0.25 });
      const ids = JSON.parse(process.argv[1]);
      process.stdout.write(ids.map((traceId) => (s.shouldSample({ traceId }).sampled ? '1' : '0')).join(''));`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script, JSON.stringify(ids)], { encoding: 'utf8' });
    expect(child.status, child.stderr).toBe(0);
    const here = new StratifiedSampler({ defaultRate: 0.25 });
    const local = ids.map((traceId) => (here.shouldSample(tripletOf(0, { traceId })).sampled ? '1' : '0')).join('');
    expect(child.stdout).toBe(local);
    expect(local.split('').filter((c) => c === '1').length).toBeGreaterThan(400);
  });

  it('weights a sampled triplet by 1/p', () => {
    const sampler = new RateSampler(0.25);
    const decisions = Array.from({ length: 50 }, (_, i) => sampler.shouldSample(tripletOf(i)));
    const sampled = decisions.filter((d) => d.sampled);
    expect(sampled.length).toBeGreaterThan(0);
    for (const d of sampled) expect(d).toMatchObject({ sampled: true, sampling: { weight: 4, stratum: 'all', rule: 'rate' } });
  });
});

describe('stratified sampling', () => {
  it('uses the per-stratum rate and puts unknown values in `other`', () => {
    const s = new StratifiedSampler({ by: 'route', rates: { '/a': 0.5, '/b': 0.05 }, defaultRate: 0.2 });
    const counts = new Map<string, number>();
    const weights = new Map<string, number>();
    for (let i = 0; i < N; i++) {
      const route = ['/a', '/b', '/zzz'][i % 3]!;
      const d = s.shouldSample(tripletOf(i, { route }));
      if (!d.sampled) continue;
      counts.set(d.sampling.stratum, (counts.get(d.sampling.stratum) ?? 0) + 1);
      weights.set(d.sampling.stratum, d.sampling.weight);
    }
    expect([...counts.keys()].sort()).toEqual(['/a', '/b', 'other']);
    expect(weights.get('/a')).toBe(2);
    expect(weights.get('/b')).toBe(20);
    expect(weights.get('other')).toBe(5);
    expect(counts.get('/a')! / (N / 3)).toBeCloseTo(0.5, 1);
    expect(counts.get('/b')! / (N / 3)).toBeCloseTo(0.05, 1);
  });

  it('caps a quota stratum per minute and weights by the estimated rate', () => {
    const s = new StratifiedSampler({ by: 'route', quotasPerMinute: { '/q': 50 } });
    const minute0 = 1_800_000_000_000 - (1_800_000_000_000 % 60_000);
    let taken0 = 0;
    for (let i = 0; i < 1_000; i++) if (s.shouldSample(tripletOf(i, { route: '/q' }), minute0 + i).sampled) taken0++;
    expect(taken0).toBeLessThanOrEqual(50);
    // Next minute, same traffic: rate ≈ 50/1000 from the previous minute's count.
    const decisions = Array.from({ length: 1_000 }, (_, i) => s.shouldSample(tripletOf(10_000 + i, { route: '/q' }), minute0 + 60_000 + i));
    const sampled = decisions.filter((d) => d.sampled);
    expect(sampled.length).toBeGreaterThan(30);
    expect(sampled.length).toBeLessThanOrEqual(50);
    for (const d of sampled) if (d.sampled) expect(d.sampling).toMatchObject({ weight: 20, stratum: '/q', rule: 'stratum_quota' });
  });
});

describe('rule sampling', () => {
  const fallback = new StratifiedSampler({ by: 'route', rates: { '/a': 0.01 }, defaultRate: 0 });
  const rules = new RulesSampler({
    fallback,
    feedback: { thumbsAttributes: ['fb'], ratingAttributes: [], positiveValues: ['up'], negativeValues: ['down'] },
    rules: [
      { name: 'no-internal', action: 'out', match: { service: 'internal' } },
      { name: 'empty', action: 'in', match: { emptyResponse: true } },
      { name: 'slow', action: 'in', match: { latencyAboveMs: 5_000 } },
      { name: 'unhappy', action: 'in', match: { negativeFeedback: true } },
      { name: 'gpt5-half', action: 'in', rate: 0.5, match: { model: 'gpt-5', attributes: { tenant: 'acme' } } },
    ],
  });

  it('first match wins, forced-in triplets carry weight 1/rule-rate and their stratum', () => {
    const empty = rules.shouldSample(tripletOf(1, { response: '  ', route: '/a' }));
    expect(empty).toMatchObject({ sampled: true, sampling: { rule: 'empty', weight: 1, stratum: '/a' } });
    // `out` comes first, so an internal empty response stays out.
    expect(rules.shouldSample(tripletOf(1, { response: '', service: 'internal' }))).toEqual({ sampled: false, rule: 'no-internal' });
    expect(rules.shouldSample(tripletOf(2, { latency: { durationMs: 6_000 } }))).toMatchObject({ sampled: true, sampling: { rule: 'slow' } });
    expect(rules.shouldSample(tripletOf(3, { attributes: { fb: 'down' } }))).toMatchObject({ sampled: true, sampling: { rule: 'unhappy' } });
    expect(rules.shouldSample(tripletOf(3, { attributes: { fb: 'up' } }))).toMatchObject({ sampled: false });
  });

  it('an `in` rule with a rate samples that share deterministically with weight 1/rate', () => {
    let n = 0;
    for (let i = 0; i < 4_000; i++) {
      const d = rules.shouldSample(tripletOf(i, { model: 'gpt-5', attributes: { tenant: 'acme' } }));
      if (d.sampled) {
        n++;
        expect(d.sampling).toMatchObject({ rule: 'gpt5-half', weight: 2 });
      }
    }
    expect(n / 4_000).toBeCloseTo(0.5, 1);
    // Without the attribute the rule does not match and the fallback (rate 0 for `other`) says no.
    expect(rules.shouldSample(tripletOf(1, { model: 'gpt-5' })).sampled).toBe(false);
  });

  it('is built from config (rules → strata → rate)', () => {
    const config = loadConfig({
      env: {},
      overrides: {
        sampling: {
          rate: 0,
          rules: [{ name: 'empty', action: 'in', match: { emptyResponse: true } }],
          strata: { by: 'route', rates: { '/x': 1 } },
        },
      },
    });
    const s = createSampler(config.sampling);
    expect(s.shouldSample(tripletOf(1, { response: '' }))).toMatchObject({ sampled: true, sampling: { rule: 'empty' } });
    expect(s.shouldSample(tripletOf(1, { route: '/x' }))).toMatchObject({ sampled: true, sampling: { stratum: '/x', rule: 'stratum_rate' } });
    expect(s.shouldSample(tripletOf(1, { route: '/y' }))).toEqual({ sampled: false, rule: 'stratum_rate' });
    expect(createSampler(defaultConfig().sampling).shouldSample(tripletOf(5))).toMatchObject({ sampled: true, sampling: { weight: 1, stratum: 'all' } });
  });
});

describe('scoring budget', () => {
  it('admits at most maxTripletsPerMinute, refilling over time', () => {
    const b = new ScoringBudget({ maxTripletsPerMinute: 60 });
    const t0 = 1_000_000;
    let admitted = 0;
    for (let i = 0; i < 100; i++) if (b.tryAdmit(t0).admitted) admitted++;
    expect(admitted).toBe(60);
    expect(b.tryAdmit(t0)).toEqual({ admitted: false, reason: 'budget_triplets' });
    expect(b.tryAdmit(t0 + 1_000).admitted).toBe(true); // one per second refilled
  });

  it('stops admitting once the hourly token budget is spent, and forgets tokens older than an hour', () => {
    const b = new ScoringBudget({ maxTokensPerHour: 1_000 });
    const t0 = 3_600_000 * 10;
    expect(b.tryAdmit(t0).admitted).toBe(true);
    b.recordTokens(600, t0);
    b.recordTokens(500, t0 + 60_000);
    expect(b.tryAdmit(t0 + 120_000)).toEqual({ admitted: false, reason: 'budget_tokens' });
    expect(b.tokensInLastHour(t0 + 3_600_000 + 30_000)).toBe(500);
    expect(b.tryAdmit(t0 + 3_600_000 + 30_000).admitted).toBe(true);
  });
});

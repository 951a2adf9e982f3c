/**
 * The live weakness map: a planted topic × question type cell is flagged in its series (and the noise
 * cells are not), counts and means per cell match the input, the flagged series are capped per metric,
 * answers leave with the window, a full map evicts (counted), and an alert names the worst flagged cell.
 */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { createInstruments } from '../../src/telemetry/instruments.ts';
import { QualityMonitor } from '../../src/roles/quality.ts';
import { instrumentsOptionsFromConfig } from '../../src/telemetry/instruments.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';
import { LiveWeaknessMap } from '../../src/weakness/live-map.ts';
import { metricValue } from '../helpers/process.ts';
import { rng } from '../helpers/rng.ts';

const TYPES = ['what', 'who', 'how', 'when'];

function map(options: Partial<ConstructorParameters<typeof LiveWeaknessMap>[0]> = {}) {
  const registry = new Registry();
  let now = 1_000_000;
  const m = new LiveWeaknessMap({ registry, windowMs: 60_000, maxAnswers: 10_000, bivariateMetrics: ['grounding_lexical'], minCount: 20, fdr: 0.05, cacheMs: 0, now: () => now, ...options });
  return { m, registry, advance: (ms: number) => (now += ms) };
}

const series = (text: string, name: string) => text.split('\n').filter((l) => l.startsWith(`${name}{`));

describe('live weakness map', () => {
  it('flags the planted topic × question type cell and not the noise, with exact counts', async () => {
    const { m, registry } = map();
    const random = rng(7);
    let id = 0;
    for (let t = 0; t < 6; t++) {
      for (const q of TYPES) {
        const planted = t === 2 && q === 'how';
        for (let i = 0; i < 30; i++) {
          const v = Math.min(1, Math.max(0, (planted ? 0.45 : 0.8) + (random() - 0.5) * 0.3));
          m.add({ tripletId: `a${id++}`, judge: 'embedded', weight: 1 + Math.floor(random() * 3), scores: { grounding_lexical: v, context_relevancy: 0.6 }, dims: { topic: `t${t}`, queryType: q } });
        }
      }
    }
    const text = await registry.metrics();
    const flagged = series(text, 'ragwatch_weakness_flagged');
    expect(flagged.filter((l) => l.includes('dimension="topic,query_type"'))).toEqual([expect.stringContaining('cell="t2,how"')]);
    expect(metricValue(text, 'ragwatch_weakness_cell_samples', { metric: 'grounding_lexical', topic: 't2', query_type: 'how' })).toBe(30);
    expect(metricValue(text, 'ragwatch_weakness_cell_mean_ratio', { metric: 'grounding_lexical', topic: 't2', query_type: 'how' })).toBeLessThan(0.55);
    // Bivariate series only for the bivariate metrics: 6 topics × 4 types.
    expect(series(text, 'ragwatch_weakness_cell_mean_ratio')).toHaveLength(24);
    expect(metricValue(text, 'ragwatch_score_by_topic_mean_ratio', { metric: 'context_relevancy', topic: 't4' })).toBeCloseTo(0.6, 12);
    expect(m.worst('grounding_lexical')?.dimensions).toEqual({ topic: 't2', queryType: 'how' });
    expect(m.worst('grounding_lexical')?.worst).toHaveLength(3);
  });

  it('caps the flagged series per metric and judge (20), evicts beyond maxAnswers (counted), and forgets answers past the window', async () => {
    const { m, registry, advance } = map({ maxAnswers: 3_000 });
    let id = 0;
    for (let i = 0; i < 1_500; i++) m.add({ tripletId: `g${id++}`, judge: 'embedded', weight: 1, scores: { grounding_lexical: 0.85 + (i % 10) / 100 }, dims: { queryType: 'what', route: 'main' } });
    for (let r = 0; r < 30; r++) for (let i = 0; i < 25; i++) m.add({ tripletId: `b${id++}`, judge: 'embedded', weight: 1, scores: { grounding_lexical: 0.3 + (i % 5) / 100 }, dims: { queryType: 'what', route: `r${r}` } });
    let text = await registry.metrics();
    expect(m.cells().filter((c) => c.flagged && c.dimensions.route !== undefined)).toHaveLength(30);
    expect(series(text, 'ragwatch_weakness_flagged').filter((l) => l.includes('dimension="route"'))).toHaveLength(20);
    expect(metricValue(text, 'ragwatch_weakness_evicted_total')).toBe(0);
    for (let i = 0; i < 800; i++) m.add({ tripletId: `x${id++}`, judge: 'embedded', weight: 1, scores: { grounding_lexical: 0.9 }, dims: { queryType: 'who' } });
    text = await registry.metrics();
    expect(metricValue(text, 'ragwatch_weakness_evicted_total')).toBe(1_500 + 750 + 800 - 3_000);
    advance(61_000);
    m.add({ tripletId: 'late', judge: 'embedded', weight: 1, scores: { grounding_lexical: 0.5 }, dims: { queryType: 'why' } });
    expect(m.answers().map((a) => a.tripletId)).toEqual(['late']);
    expect(series(await registry.metrics(), 'ragwatch_score_by_query_type_mean_ratio')).toHaveLength(1);
  });

  it('names the worst flagged cell in the alert annotation and the diagnosis', async () => {
    const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, weakness: { topics: false }, alerts: { metrics: { grounding_lexical: { threshold: 0.8, minSamples: 10 } } } } });
    const instruments = createInstruments(instrumentsOptionsFromConfig(config));
    const quality = new QualityMonitor({ config, instruments, weaknessCacheMs: 0 });
    let n = 0;
    const feed = (query: string, score: number) => {
      const id = `q${n++}`;
      const t = { id, traceId: `${n}`.padStart(32, '7'), spanId: '0'.repeat(16), service: 'rag', timestamp: new Date().toISOString(), query, sources: [], response: 'r', latency: { durationMs: 1 }, convention: 'custom', route: '/ask', sampling: { weight: 1, stratum: 's', rule: 'r' } } as SampledTriplet;
      quality.onRecord({ tripletId: id, traceId: t.traceId, service: 'rag', stratum: 's', weight: 1, timestamp: t.timestamp, judge: { kind: 'embedded' }, scores: { grounding_lexical: score }, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 } } as ScoreRecord, t);
    };
    for (let i = 0; i < 40; i++) feed(`Who wrote book ${i}?`, 0.3 + (i % 4) / 100);
    for (let i = 0; i < 40; i++) feed(`When was book ${i} written?`, 0.85 + (i % 4) / 100);
    const [alert] = quality.evaluator.evaluate();
    expect(alert?.metric).toBe('grounding_lexical');
    expect(alert?.weakness).toMatch(/^0\.3\d on question type who \(n = 40, 95 % CI 0\.3\d–0\.3\d; the rest 0\.8\d\)$/);
    expect(alert?.diagnosis).toContain(`weakest: grounding_lexical ${alert?.weakness}`);
    await quality.shutdown();
  });
});

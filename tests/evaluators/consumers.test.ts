/**
 * A configured evaluator through every consumer of a scoring process (QualityMonitor), with no code of
 * its own: the weakness map breaks it down by question type (series and the page's cells), the change
 * alerts and the slices watch it (page severity), the threshold evaluator alerts on it.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { QualityMonitor } from '../../src/roles/quality.ts';
import { createInstruments, instrumentsOptionsFromConfig } from '../../src/telemetry/instruments.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';
import { metricValue } from '../helpers/process.ts';
import { WORKED_EXAMPLES } from './worked-examples.ts';

describe('a configured evaluator in every consumer', () => {
  it('weakness map, change, slices and threshold alerts take it as any metric', async () => {
    const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, weakness: { topics: false }, evaluators: WORKED_EXAMPLES.map((e) => (e.name === 'cites_source' ? { ...e, alerts: { ...(e.alerts as object), minSamples: 5, for: '1s' } } : e)) } });
    let now = Date.UTC(2026, 3, 1);
    const instruments = createInstruments(instrumentsOptionsFromConfig(config));
    const quality = new QualityMonitor({ config, instruments, now: () => now, weaknessCacheMs: 0 });
    const feed = (i: number, query: string, cited: boolean) => {
      const t = { id: `t${i}`, traceId: '0'.repeat(32), spanId: '0'.repeat(16), service: 'shop', release: 'v1', timestamp: new Date(now).toISOString(), query, sources: [{ content: 's' }], response: 'r', latency: { durationMs: 1 }, convention: 'custom', sampling: { weight: 1, stratum: 's', rule: 'r' } } as SampledTriplet;
      const r = { tripletId: t.id, traceId: t.traceId, service: 'shop', release: 'v1', stratum: 's', weight: 1, timestamp: t.timestamp, judge: { kind: 'embedded' }, scores: { cites_source: cited ? 1 : 0 }, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 } } as ScoreRecord;
      quality.onRecord(r, t);
    };
    // "who" questions always cite; "how many" ones never do.
    for (let i = 0; i < 30; i++) feed(i, i % 2 === 0 ? 'Who runs the returns desk?' : 'How many days do returns take?', i % 2 === 0);
    const text = await instruments.registry.metrics();
    expect(metricValue(text, 'ragwatch_score_by_query_type_mean_ratio', { metric: 'cites_source', judge: 'embedded', query_type: 'who' })).toBe(1);
    expect(metricValue(text, 'ragwatch_score_by_query_type_mean_ratio', { metric: 'cites_source', judge: 'embedded', query_type: 'numeric' })).toBe(0);
    expect(quality.weaknessView().cells.some((c) => c.metric === 'cites_source' && c.dimensions.queryType === 'numeric')).toBe(true);
    // Page severity: the change alerts and the slices watch it.
    expect(quality.change.status().some((s) => s.metric === 'cites_source')).toBe(true);
    expect(metricValue(text, 'ragwatch_slice_answers_total', { metric: 'cites_source', dimension: 'release', slice: 'v1' })).toBe(30);
    // The threshold alert: mean 0.5 < 0.9 over ≥ 5 answers, held 1 s.
    quality.evaluator.evaluate();
    now += 2_000;
    const firing = quality.evaluator.evaluate().find((a) => a.metric === 'cites_source');
    expect(firing).toMatchObject({ name: 'RagwatchCitesSourceLow', state: 'firing', severity: 'page', value: 0.5, threshold: 0.9 });
    await quality.shutdown();
  });
});

/**
 * The live per-question-type series: scored answers of different question types land in
 * `ragwatch_score_by_query_type_mean_ratio` with their weighted means, computed by hand.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { createInstruments } from '../../src/telemetry/instruments.ts';
import { QualityMonitor } from '../../src/roles/quality.ts';
import { instrumentsOptionsFromConfig } from '../../src/telemetry/instruments.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';
import { metricValue } from '../helpers/process.ts';

describe('score by question type', () => {
  it('weighted means per type', async () => {
    const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false } } });
    const instruments = createInstruments(instrumentsOptionsFromConfig(config));
    const quality = new QualityMonitor({ config, instruments });
    const feed = (query: string, score: number, weight: number) => {
      const t = { id: query, traceId: '0'.repeat(32), spanId: '0'.repeat(16), service: 'rag', timestamp: new Date().toISOString(), query, sources: [], response: 'r', latency: { durationMs: 1 }, convention: 'custom', sampling: { weight, stratum: 's', rule: 'r' } } as SampledTriplet;
      const r = { tripletId: query, traceId: t.traceId, service: 'rag', stratum: 's', weight, timestamp: t.timestamp, judge: { kind: 'embedded' }, scores: { grounding_lexical: score }, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 } } as ScoreRecord;
      quality.onRecord(r, t);
    };
    feed('Who founded Acme?', 1, 1);
    feed('Who runs Acme?', 0.4, 3);
    feed('How many staff does Acme have?', 0.9, 1);
    const text = await instruments.registry.metrics();
    expect(metricValue(text, 'ragwatch_score_by_query_type_mean_ratio', { metric: 'grounding_lexical', judge: 'embedded', query_type: 'who' })).toBeCloseTo((1 + 3 * 0.4) / 4, 12);
    expect(metricValue(text, 'ragwatch_score_by_query_type_mean_ratio', { query_type: 'numeric' })).toBeCloseTo(0.9, 12);
    expect(metricValue(text, 'ragwatch_score_by_query_type_mean_ratio', { query_type: 'why' })).toBeUndefined();
    await quality.shutdown();
  });
});

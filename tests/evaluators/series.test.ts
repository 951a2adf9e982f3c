/**
 * The series of configured evaluators on the metrics consumer: the registry exported as
 * `ragwatch_metric_info` (what the evaluators dashboard repeats its rows over), the verdicts by label,
 * the threshold gauge and alert rule from the evaluator's settings, a categorical value as a bucket bound.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { ScoreMetrics } from '../../src/metrics/score-metrics.ts';
import { createInstruments, instrumentsOptionsFromConfig } from '../../src/telemetry/instruments.ts';
import type { ScoreRecord } from '../../src/triplet.ts';
import { metricValue } from '../helpers/process.ts';
import { WORKED_EXAMPLES } from './worked-examples.ts';

const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, evaluators: WORKED_EXAMPLES } });

function record(judge: 'llm' | 'embedded', scores: Record<string, number>, evaluators: NonNullable<ScoreRecord['details']['evaluators']> = {}): ScoreRecord {
  return { tripletId: 't', traceId: 'a'.repeat(32), service: 'shop', stratum: 'all', weight: 1, timestamp: new Date().toISOString(), judge: { kind: judge }, scores, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [], evaluators }, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 } };
}

describe('evaluator series', () => {
  it('exports the registry, the verdicts by label, the thresholds; means and status like any metric', async () => {
    const instruments = createInstruments(instrumentsOptionsFromConfig(config));
    const m = new ScoreMetrics({ config, instruments });
    m.onRecord(record('llm', { groundedness: 0.9, cites_source: 1, no_dosage_advice: 0, answer_tone: 0.5 }, { answer_tone: { label: 'curt', reason: 'Brusque.' } }));
    m.onRecord(record('llm', { cites_source: 0, no_dosage_advice: 1, answer_tone: 1 }));
    m.onRecord(record('embedded', { cites_source: 1 }));
    const text = await instruments.registry.metrics();
    expect(metricValue(text, 'ragwatch_metric_info', { metric: 'groundedness', kind: 'score', source: 'builtin' })).toBe(1);
    expect(metricValue(text, 'ragwatch_metric_info', { metric: 'cites_source', kind: 'boolean', source: 'check_evaluator' })).toBe(1);
    expect(metricValue(text, 'ragwatch_metric_info', { metric: 'answer_tone', kind: 'categorical', source: 'llm_evaluator' })).toBe(1);
    const verdicts = (labels: Record<string, string>) => metricValue(text, 'ragwatch_evaluator_verdicts_total', labels);
    expect(verdicts({ metric: 'cites_source', judge: 'llm', label: 'pass' })).toBe(1);
    expect(verdicts({ metric: 'cites_source', judge: 'llm', label: 'fail' })).toBe(1);
    expect(verdicts({ metric: 'cites_source', judge: 'embedded', label: 'pass' })).toBe(1);
    expect(verdicts({ metric: 'no_dosage_advice', judge: 'llm', label: 'fail' })).toBe(1);
    // The recorded label; without one, the label of the value.
    expect(verdicts({ metric: 'answer_tone', judge: 'llm', label: 'curt' })).toBe(1);
    expect(verdicts({ metric: 'answer_tone', judge: 'llm', label: 'courteous' })).toBe(1);
    // Built-in metrics have no verdicts series.
    expect(text).not.toMatch(/ragwatch_evaluator_verdicts_total\{metric="groundedness"/);
    expect(metricValue(text, 'ragwatch_threshold_ratio', { metric: 'cites_source' })).toBe(0.9);
    expect(metricValue(text, 'ragwatch_threshold_ratio', { metric: 'answer_tone' })).toBe(0.8);
    expect(m.rules.find((r) => r.metric === 'no_dosage_advice')).toMatchObject({ threshold: 0.99, severity: 'page', alert: true });
    const means = m.status().means.filter((x) => x.metric === 'cites_source');
    expect(means.map((x) => [x.judge, x.mean, x.threshold])).toEqual(expect.arrayContaining([['llm', 0.5, 0.9], ['embedded', 1, 0.9]]));
    await m.shutdown();
  });

  it('a categorical label’s value is a bucket bound of the score histogram', () => {
    expect(instrumentsOptionsFromConfig(config).scoreThresholds).toEqual(expect.arrayContaining([0.5, 0.9, 0.95, 0.99]));
  });
});

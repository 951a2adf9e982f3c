import { describe, expect, it } from 'vitest';
import { BUILTIN_METRICS, BUILTIN_REGISTRY, MAX_EVALUATORS, MetricRegistry, evaluatorDefinition, metricRegistryOf } from '../src/metric-registry.ts';
import { DEFAULT_ALERT_METRICS } from '../src/config/sections/alerts.ts';
import { EMBEDDED_METRICS, LLM_METRICS, METRIC_NAMES, SCORER_METRICS, scoreRecordSchema } from '../src/triplet.ts';

const spec = (name: string, kind: 'llm' | 'check', output?: { type: 'score' | 'boolean' | 'categorical'; labels?: Array<{ label: string; value: number }> }) => ({
  name,
  description: `${name} holds`,
  kind,
  ...(output ? { output } : {}),
  alerts: { threshold: 0.8, severity: 'ticket' },
});

describe('the built-in registry', () => {
  it('holds every built-in metric once, in [0,1], higher is better', () => {
    expect(BUILTIN_REGISTRY.names().sort()).toEqual([...METRIC_NAMES].sort());
    for (const d of BUILTIN_REGISTRY.list()) {
      expect(d.range).toEqual([0, 1]);
      expect(d.direction).toBe('higher_is_better');
      expect(d.source).toBe('builtin');
    }
  });

  it('names the judges that make each metric', () => {
    expect(BUILTIN_REGISTRY.get('groundedness')!.judges).toEqual(['llm']);
    expect(BUILTIN_REGISTRY.get('grounding_lexical')!.judges).toEqual(['embedded', 'local']);
    expect(BUILTIN_REGISTRY.get('claim_support')!.judges).toEqual(['local']);
    expect(BUILTIN_REGISTRY.get('response_self_distinctness')!.judges).toEqual(['llm', 'embedded', 'local']);
    expect(BUILTIN_REGISTRY.get('pii_free')!.judges).toEqual(['llm', 'embedded', 'local']);
    for (const m of LLM_METRICS) expect(BUILTIN_REGISTRY.forJudge('llm').map((d) => d.name)).toContain(m);
    for (const m of [...EMBEDDED_METRICS, ...SCORER_METRICS]) expect(BUILTIN_REGISTRY.forJudge('embedded').map((d) => d.name)).toContain(m);
    // The local judge scores every embedded metric beside its own.
    for (const m of [...EMBEDDED_METRICS, ...SCORER_METRICS, 'claim_support']) expect(BUILTIN_REGISTRY.forJudge('local').map((d) => d.name)).toContain(m);
    expect(BUILTIN_REGISTRY.forJudge('embedded').map((d) => d.name)).not.toContain('claim_support');
    expect(BUILTIN_REGISTRY.forJudge('embedded').map((d) => d.name)).not.toContain('groundedness');
  });

  it('is where the default alert settings come from', () => {
    expect(Object.keys(DEFAULT_ALERT_METRICS).sort()).toEqual(BUILTIN_REGISTRY.names().sort());
    expect(DEFAULT_ALERT_METRICS.groundedness).toEqual({ threshold: 0.8, severity: 'page' });
    expect(BUILTIN_REGISTRY.get('non_toxic')!.kind).toBe('boolean');
  });
});

describe('a configuration’s registry', () => {
  const config = {
    evaluators: [
      spec('cites_source', 'check'),
      spec('no_dosage', 'llm', { type: 'boolean' }),
      spec('tone', 'llm', { type: 'categorical', labels: [{ label: 'warm', value: 1 }, { label: 'curt', value: 0.5 }, { label: 'rude', value: 0 }] }),
    ],
  };

  it('adds the evaluators after the built-ins, with their kind and judges', () => {
    const r = metricRegistryOf(config);
    expect(r.names()).toEqual([...BUILTIN_METRICS.map((d) => d.name), 'cites_source', 'no_dosage', 'tone']);
    expect(r.get('cites_source')).toMatchObject({ kind: 'boolean', judges: ['llm', 'embedded', 'local'], source: 'check_evaluator' });
    expect(r.get('no_dosage')).toMatchObject({ kind: 'boolean', judges: ['llm'], source: 'llm_evaluator' });
    expect(r.get('tone')).toMatchObject({ kind: 'categorical', labels: [{ label: 'warm', value: 1 }, { label: 'curt', value: 0.5 }, { label: 'rude', value: 0 }] });
    expect(r.evaluators().map((d) => d.name)).toEqual(['cites_source', 'no_dosage', 'tone']);
    expect(r.forJudge('embedded').map((d) => d.name)).toContain('cites_source');
    expect(r.forJudge('embedded').map((d) => d.name)).not.toContain('no_dosage');
  });

  it('is built once per configuration object; none is the built-in one', () => {
    expect(metricRegistryOf(config)).toBe(metricRegistryOf(config));
    expect(metricRegistryOf({})).toBe(BUILTIN_REGISTRY);
    expect(metricRegistryOf({ evaluators: [] })).toBe(BUILTIN_REGISTRY);
  });

  it('refuses a duplicate or a malformed name', () => {
    expect(() => new MetricRegistry([...BUILTIN_METRICS, evaluatorDefinition(spec('groundedness', 'check'))])).toThrow(/defined twice/);
    expect(() => new MetricRegistry([evaluatorDefinition(spec('Bad-Name', 'check'))])).toThrow(/does not match/);
  });

  it('holds at most MAX_EVALUATORS evaluators (the bound of the metric label)', () => {
    const many = (n: number) => Array.from({ length: n }, (_, i) => evaluatorDefinition(spec(`rule_${i}`, 'check')));
    expect(new MetricRegistry([...BUILTIN_METRICS, ...many(MAX_EVALUATORS)]).evaluators()).toHaveLength(MAX_EVALUATORS);
    expect(() => new MetricRegistry([...BUILTIN_METRICS, ...many(MAX_EVALUATORS + 1)])).toThrow(/at most 16/);
  });

  it('splits a record’s map into the metrics it knows and those it does not', () => {
    const r = metricRegistryOf(config);
    expect(r.known({ groundedness: 0.5, tone: 1, from_a_newer_scorer: 0 })).toEqual({ known: { groundedness: 0.5, tone: 1 }, unknown: ['from_a_newer_scorer'] });
    expect(BUILTIN_REGISTRY.known({ tone: 1 })).toEqual({ known: {}, unknown: ['tone'] });
  });
});

describe('the wire contract keys scores by metric name, not by a closed list', () => {
  const record = { tripletId: 't', traceId: 'a', service: 's', stratum: 'x', weight: 1, timestamp: '2026-01-01T00:00:00Z', judge: { kind: 'llm' }, details: {}, diagnosis: [], usage: { calls: 1, inputTokens: 1, outputTokens: 1, durationMs: 1 } };

  it('reads a record with a metric this build does not know (a newer scorer’s evaluator)', () => {
    const parsed = scoreRecordSchema.parse({ ...record, scores: { groundedness: 0.9, cites_source: 1 }, skipped: { no_dosage: 'no_llm_judge' } });
    expect(parsed.scores).toEqual({ groundedness: 0.9, cites_source: 1 });
    expect(parsed.skipped).toEqual({ no_dosage: 'no_llm_judge' });
  });

  it('refuses a malformed metric name or a score outside [0,1]', () => {
    expect(scoreRecordSchema.safeParse({ ...record, scores: { 'Not A Metric': 1 }, skipped: {} }).success).toBe(false);
    expect(scoreRecordSchema.safeParse({ ...record, scores: { tone: 1.5 }, skipped: {} }).success).toBe(false);
  });
});

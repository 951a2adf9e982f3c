/**
 * The deploy-gate examples of helm/examples/release-gates (docs/deploy.md, "Release gates"): the Argo Rollouts
 * AnalysisTemplate validates against Argo Rollouts' own schema (@kubernetes-models/argo-rollouts), the
 * Flagger MetricTemplate against the schema of Flagger's CRD (metrictemplates.flagger.app v1beta1,
 * transcribed below with the Canary's metric entry that references it); both queries parse as PromQL
 * once their variables are filled, read the series ragwatch exports, and map the verdicts to the
 * tool's outcomes as documented (worse fails, inconclusive waits, no_worse passes).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AnalysisTemplate } from '@kubernetes-models/argo-rollouts/argoproj.io/v1alpha1/AnalysisTemplate';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from '../helpers/process.ts';
import { promqlSyntaxError } from './dashboard-queries.ts';

const load = (name: string) => parse(readFileSync(join(ROOT, 'helm/examples/release-gates', name), 'utf8')) as Record<string, unknown>;

/** Flagger's MetricTemplate spec (CRD metrictemplates.flagger.app, v1beta1 openAPIV3Schema). */
const METRIC_TEMPLATE_SCHEMA = {
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  properties: {
    apiVersion: { const: 'flagger.app/v1beta1' },
    kind: { const: 'MetricTemplate' },
    metadata: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, namespace: { type: 'string' } } },
    spec: {
      type: 'object',
      required: ['provider', 'query'],
      additionalProperties: false,
      properties: {
        provider: {
          type: 'object',
          required: ['type'],
          additionalProperties: false,
          properties: {
            type: { enum: ['prometheus', 'influxdb', 'datadog', 'externalmetrics', 'stackdriver', 'cloudwatch', 'newrelic', 'graphite', 'dynatrace', 'keptn', 'splunk'] },
            address: { type: 'string' },
            headers: { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } },
            secretRef: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
            region: { type: 'string' },
            insecureSkipVerify: { type: 'boolean' },
          },
        },
        query: { type: 'string' },
      },
    },
  },
};

/** One entry of a Canary's `analysis.metrics` (CRD canaries.flagger.app, v1beta1). */
const CANARY_METRIC_SCHEMA = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: { type: 'string' },
    interval: { type: 'string', pattern: '^[0-9]+(m|s)' },
    threshold: { type: 'number' },
    thresholdRange: { type: 'object', additionalProperties: false, properties: { min: { type: 'number' }, max: { type: 'number' } } },
    query: { type: 'string' },
    templateRef: { type: 'object', required: ['name'], additionalProperties: false, properties: { name: { type: 'string' }, namespace: { type: 'string' } } },
    templateVariables: { type: 'object', additionalProperties: { type: 'string' } },
  },
};

/** The commented Canary snippet of the example file, uncommented. */
function canaryMetric(file: string): unknown {
  const text = readFileSync(join(ROOT, 'helm/examples/release-gates', file), 'utf8');
  const lines = text.split('\n').filter((l) => l.startsWith('#   #   ')).map((l) => l.slice('#   #   '.length));
  const doc = parse(lines.join('\n')) as { analysis: { metrics: unknown[] } };
  return doc.analysis.metrics[0];
}

describe('release gate examples', () => {
  it('the Argo Rollouts AnalysisTemplate validates against Argo Rollouts\' schema', () => {
    const obj = load('argo-rollouts-analysis.yaml');
    expect(() => new AnalysisTemplate(obj as ConstructorParameters<typeof AnalysisTemplate>[0]).validate()).not.toThrow();
    // The check bites: a metric without a provider is refused.
    const broken = structuredClone(obj) as { spec: { metrics: Array<Record<string, unknown>> } };
    delete broken.spec.metrics[0]!.provider;
    expect(() => new AnalysisTemplate(broken as unknown as ConstructorParameters<typeof AnalysisTemplate>[0]).validate()).toThrow();
  });

  it('the Flagger MetricTemplate and the Canary metric that references it validate against Flagger\'s CRD schema', () => {
    const ajv = new Ajv({ allErrors: true });
    const template = ajv.compile(METRIC_TEMPLATE_SCHEMA);
    const obj = load('flagger-metric-template.yaml');
    expect(template(obj), JSON.stringify(template.errors)).toBe(true);
    expect(template({ ...obj, spec: { query: 'x' } })).toBe(false);
    const metric = ajv.compile(CANARY_METRIC_SCHEMA);
    const m = canaryMetric('flagger-metric-template.yaml');
    expect(metric(m), JSON.stringify(metric.errors)).toBe(true);
    expect(m).toMatchObject({ templateRef: { name: (obj.metadata as { name: string }).name }, thresholdRange: { min: 0 } });
  });

  it('both queries read ragwatch_release_verdict, parse as PromQL filled in, and map the verdicts as documented', () => {
    const argo = load('argo-rollouts-analysis.yaml') as { spec: { metrics: Array<{ successCondition: string; failureCondition: string; provider: { prometheus: { query: string } } }> } };
    const flagger = load('flagger-metric-template.yaml') as { spec: { query: string } };
    const argoQuery = argo.spec.metrics[0]!.provider.prometheus.query.replace(/\{\{args\.([a-z-]+)\}\}/g, 'x');
    const flaggerQuery = flagger.spec.query.replace(/\{\{ variables\.([a-z]+) \}\}/g, 'x');
    for (const q of [argoQuery, flaggerQuery]) {
      expect(q).toContain('ragwatch_release_verdict{');
      expect(promqlSyntaxError(q), q).toBeUndefined();
    }
    // Argo: success on no_worse (1), failure on worse (-1), neither (inconclusive) on 0.
    const m = argo.spec.metrics[0]!;
    const outcome = (v: number) => (eval(m.failureCondition.replace('result[0]', String(v))) ? 'failed' : eval(m.successCondition.replace('result[0]', String(v))) ? 'successful' : 'inconclusive');
    expect([-1, 0, 1].map(outcome)).toEqual(['failed', 'inconclusive', 'successful']);
    // Flagger: thresholdRange min 0 fails worse only.
    const range = (canaryMetric('flagger-metric-template.yaml') as { thresholdRange: { min: number } }).thresholdRange;
    expect([-1, 0, 1].map((v) => v >= range.min)).toEqual([false, true, true]);
  });
});

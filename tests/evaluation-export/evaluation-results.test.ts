/**
 * From a score record to evaluation results: labels from the thresholds, `select: failing`, skipped
 * metrics as `error.type`, explanations redacted and truncated; and the OTel exporters' logs variables
 * configure the OTLP writer.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.ts';
import { loadConfig } from '../../src/config/load.ts';
import { failingByThreshold, judgedMetrics, registryLabels, thresholdLabels } from '../../src/evaluation-export/create.ts';
import { langfuseScoreOf } from '../../src/evaluation-export/langfuse-writer.ts';
import { phoenixAnnotationOf } from '../../src/evaluation-export/phoenix-writer.ts';
import { BUILTIN_METRICS, MetricRegistry, evaluatorDefinition, metricRegistryOf } from '../../src/metric-registry.ts';
import { evaluationResultsOf, explanationOf, failureResultsOf } from '../../src/evaluation-export/evaluation-results.ts';
import { logsRequestOf } from '../../src/evaluation-export/otlp-log-records.ts';
import { createRedactor } from '../../src/capture/redaction/redact-outcome.ts';
import { EMBEDDED_METRICS, LLM_METRICS, type SampledTriplet, type ScoreRecord } from '../../src/triplet.ts';

const record: ScoreRecord = {
  tripletId: 't1',
  traceId: '0af7651916cd43dd8448eb211c80319c',
  service: 'svc',
  stratum: 'all',
  weight: 2,
  timestamp: '2026-11-01T10:00:00.000Z',
  judge: { kind: 'llm', model: 'judge-1' },
  scores: { groundedness: 0.8, faithfulness: 1, source_precision: 0.9, pii_free: 0 },
  skipped: { hallucination_free: 'no_claims' },
  details: {
    claims: [
      { text: 'Call +1 415 555 0100 or jane.doe@example.com for details.', verdict: 'not_in_sources' },
      { text: 'It opened in 1896.', verdict: 'supported' },
    ],
    subQuestions: [],
    sources: [],
    redundantSentences: [],
    piiTypes: { EMAIL: 1, PHONE: 2 },
  },
  diagnosis: [],
  usage: { calls: 1, inputTokens: 1, outputTokens: 1, durationMs: 1 },
};

const redactor = createRedactor();
const redact = (texts: readonly string[]) => {
  const r = redactor.redactWith((f) => texts.map(f));
  return r.ok ? r.value : undefined;
};
const labelOf = thresholdLabels(loadConfig({ env: {} }).alerts);

describe('evaluation results of a score record', () => {
  it('one result per scored and per skipped metric; fail at or below the threshold', () => {
    const results = evaluationResultsOf(record, undefined, { select: 'all', labelOf, maxExplanationChars: 1000, redact });
    const by = Object.fromEntries(results.map((r) => [r.name, r]));
    expect(Object.keys(by).sort()).toEqual(['faithfulness', 'groundedness', 'hallucination_free', 'pii_free', 'source_precision']);
    // groundedness 0.8 with threshold 0.8: at the threshold counts as failing, as the change alerts flag it.
    expect(by.groundedness).toMatchObject({ scoreValue: 0.8, scoreLabel: 'fail' });
    expect(by.faithfulness).toMatchObject({ scoreValue: 1, scoreLabel: 'pass' });
    expect(by.pii_free).toMatchObject({ scoreValue: 0, scoreLabel: 'fail', explanation: 'personal data disclosed: EMAIL, PHONE ×2' });
    expect(by.hallucination_free).toEqual(expect.objectContaining({ errorType: 'no_claims' }));
    expect(by.hallucination_free!.scoreValue).toBeUndefined();
    expect(by.groundedness!.explanation).toBe('unsupported claims: Call <PHONE_1> or <EMAIL_1> for details.');
  });

  it('`failing` keeps only failing and skipped metrics', () => {
    const results = evaluationResultsOf(record, undefined, { select: 'failing', labelOf, maxExplanationChars: 1000, redact });
    expect(results.map((r) => r.name).sort()).toEqual(['groundedness', 'hallucination_free', 'pii_free']);
  });

  it('truncates explanations, and leaves them out when redaction fails (never sends unredacted text)', () => {
    const short = evaluationResultsOf(record, undefined, { select: 'all', labelOf, maxExplanationChars: 20, redact });
    expect(short.find((r) => r.name === 'groundedness')!.explanation).toHaveLength(20);
    const failed = evaluationResultsOf(record, undefined, { select: 'all', labelOf, maxExplanationChars: 1000, redact: () => undefined });
    expect(failed.every((r) => r.explanation === undefined)).toBe(true);
    expect(explanationOf('source_precision', record)).toBeUndefined();
  });

  it('parents the log record to the evaluated span only with well-formed ids', () => {
    const base = evaluationResultsOf(record, undefined, { select: 'all', labelOf, maxExplanationChars: 0, redact })[0]!;
    const ok = logsRequestOf([{ ...base, spanId: 'b7ad6b7169203331' }], { serviceName: 'ragwatch', version: 't' }, true) as { resourceLogs: Array<{ scopeLogs: Array<{ logRecords: Array<Record<string, unknown>> }> }> };
    expect(ok.resourceLogs[0]!.scopeLogs[0]!.logRecords[0]).toMatchObject({ traceId: record.traceId, spanId: 'b7ad6b7169203331', eventName: 'gen_ai.evaluation.result', timeUnixNano: '1793527200000000000' });
    const bad = logsRequestOf([{ ...base, spanId: '' }], { serviceName: 'ragwatch', version: 't' }, true) as typeof ok;
    expect(bad.resourceLogs[0]!.scopeLogs[0]!.logRecords[0]!.spanId).toBeUndefined();
  });
});

describe('labels from the metric registry', () => {
  it("a categorical evaluator's own label, a boolean metric's pass / fail, else the threshold", () => {
    const registry = new MetricRegistry([
      ...BUILTIN_METRICS,
      evaluatorDefinition({ name: 'tone', description: 'tone', kind: 'llm', output: { type: 'categorical', labels: [{ label: 'rude', value: 0 }, { label: 'neutral', value: 0.5 }, { label: 'warm', value: 1 }] }, alerts: { threshold: 0.4, severity: 'ticket' } }),
      evaluatorDefinition({ name: 'cites_a_source', description: 'cites', kind: 'check', alerts: { threshold: 0.5, severity: 'ticket' } }),
    ]);
    const label = registryLabels(registry, loadConfig({ env: {} }).alerts);
    expect(label('tone', 0.5)).toBe('neutral');
    expect(label('tone', 1)).toBe('warm');
    expect(label('cites_a_source', 0)).toBe('fail');
    expect(label('cites_a_source', 1)).toBe('pass');
    expect(label('pii_free', 1)).toBe('pass');
    expect(label('groundedness', 0.81)).toBe('pass');
    expect(label('not_a_metric', 0.3)).toBeUndefined();
    // `failing`: at or below the evaluator's threshold (0.4), whatever its label says.
    const isFailing = failingByThreshold(registry, loadConfig({ env: {} }).alerts);
    const results = evaluationResultsOf({ ...record, scores: { tone: 0, cites_a_source: 1 }, skipped: {} }, undefined, { select: 'failing', labelOf: label, isFailing, maxExplanationChars: 0, redact });
    expect(results.map((r) => [r.name, r.scoreLabel])).toEqual([['tone', 'rude']]);
  });
});

describe("a configuration's evaluators", () => {
  it('are exported like the built-ins, each labelled by its own definition', () => {
    const config = loadConfig({
      env: {},
      overrides: {
        evaluators: [
          { name: 'tone', description: 'Warm, not rude.', kind: 'llm', rubric: 'Rate the tone.', output: { type: 'categorical', labels: [{ label: 'rude', value: 0 }, { label: 'neutral', value: 0.5 }, { label: 'warm', value: 1 }] }, alerts: { threshold: 0.4 } },
          { name: 'cites_a_source', description: 'Cites a source.', kind: 'check', check: { citesSource: true } },
        ],
      },
    });
    const registry = metricRegistryOf(config);
    const label = registryLabels(registry, config.alerts);
    const results = evaluationResultsOf({ ...record, scores: { tone: 0.5, cites_a_source: 0, groundedness: 0.9 }, skipped: {} }, undefined, { select: 'all', labelOf: label, isFailing: failingByThreshold(registry, config.alerts), maxExplanationChars: 0, redact });
    expect(Object.fromEntries(results.map((r) => [r.name, r.scoreLabel]))).toEqual({ tone: 'neutral', cites_a_source: 'fail', groundedness: 'pass' });
    const failing = evaluationResultsOf({ ...record, scores: { tone: 0, cites_a_source: 1 }, skipped: {} }, undefined, { select: 'failing', labelOf: label, isFailing: failingByThreshold(registry, config.alerts), maxExplanationChars: 0, redact });
    expect(failing.map((r) => [r.name, r.scoreLabel])).toEqual([['tone', 'rude']]);
  });
});

describe('OTEL_EXPORTER_OTLP_LOGS_* variables', () => {
  it('configure the OTLP writer', () => {
    const c = loadConfig({
      env: {
        OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'https://collector.example:4317',
        OTEL_EXPORTER_OTLP_LOGS_PROTOCOL: 'grpc',
        OTEL_EXPORTER_OTLP_LOGS_HEADERS: 'api-key=s%3Dcret,x-tenant = blue',
        OTEL_EXPORTER_OTLP_LOGS_TIMEOUT: '2500',
        OTEL_EXPORTER_OTLP_LOGS_COMPRESSION: 'gzip',
        OTEL_EXPORTER_OTLP_LOGS_INSECURE: 'true',
      },
    }).evaluationExport.otlp;
    expect(c).toMatchObject({ endpoint: 'https://collector.example:4317', protocol: 'grpc', headers: { 'api-key': 's=cret', 'x-tenant': 'blue' }, timeoutMs: 2500, compression: 'gzip', insecure: true });
  });

  it('ignores the generic OTEL_EXPORTER_OTLP_ENDPOINT (it often points at ragwatch itself)', () => {
    expect(loadConfig({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' } }).evaluationExport.otlp.endpoint).toBeUndefined();
  });

  it('names the variable of a bad value and never echoes headers', () => {
    let err: unknown;
    try {
      loadConfig({ env: { OTEL_EXPORTER_OTLP_LOGS_PROTOCOL: 'http/xml', OTEL_EXPORTER_OTLP_LOGS_HEADERS: 'authorization=Bearer secret-token', OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: 'not a url' } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain('OTEL_EXPORTER_OTLP_LOGS_PROTOCOL');
    expect((err as Error).message).toContain('evaluationExport.otlp.endpoint');
    expect((err as Error).message).not.toContain('secret-token');
  });
});

describe('failed evaluations', () => {
  const registry = new MetricRegistry([
    ...BUILTIN_METRICS,
    evaluatorDefinition({ name: 'tone', description: 'tone', kind: 'llm', output: { type: 'score' }, alerts: { threshold: 0.4, severity: 'ticket' } }),
    evaluatorDefinition({ name: 'cites_a_source', description: 'cites', kind: 'check', alerts: { threshold: 0.5, severity: 'ticket' } }),
  ]);
  const triplet: SampledTriplet = {
    id: 't9',
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    responseId: 'chatcmpl-9',
    service: 'svc',
    release: '1.0',
    timestamp: '2026-11-01T10:00:00.000Z',
    query: 'q',
    sources: [],
    response: 'r',
    latency: { durationMs: 1 },
    convention: 'custom',
    sampling: { weight: 1, stratum: 'all', rule: 'rate' },
  };

  it('a judge is to score its own metrics and its llm evaluators, never pii_free or the checks', () => {
    const of = judgedMetrics(registry);
    expect([...of('llm')].sort()).toEqual([...LLM_METRICS, 'tone'].sort());
    expect([...of('embedded')].sort()).toEqual([...EMBEDDED_METRICS].sort());
  });

  it('one error.type result per metric, without score, label or explanation; Phoenix says it, Langfuse skips it', () => {
    const results = failureResultsOf({ judge: { kind: 'llm', model: 'judge-1' }, reason: 'RAGWATCH_JUDGE_MALFORMED', timeMs: 1_000 }, triplet, ['groundedness', 'tone']);
    expect(results).toEqual(
      ['groundedness', 'tone'].map((name) => ({ tripletId: 't9', traceId: triplet.traceId, spanId: triplet.spanId, responseId: 'chatcmpl-9', name, errorType: 'RAGWATCH_JUDGE_MALFORMED', judge: { kind: 'llm', model: 'judge-1' }, service: 'svc', release: '1.0', timeMs: 1_000 })),
    );
    const attributes = (logsRequestOf(results, { serviceName: 'ragwatch', version: '0' }, true) as { resourceLogs: Array<{ scopeLogs: Array<{ logRecords: Array<{ attributes: Array<{ key: string }> }> }> }> }).resourceLogs[0]!.scopeLogs[0]!.logRecords[0]!.attributes.map((a) => a.key);
    expect(attributes).toContain('error.type');
    expect(attributes).not.toContain('gen_ai.evaluation.score.value');
    expect(phoenixAnnotationOf(results[0]!)).toMatchObject({ span_id: triplet.spanId, name: 'groundedness', result: { explanation: 'not scored: RAGWATCH_JUDGE_MALFORMED' }, metadata: { error_type: 'RAGWATCH_JUDGE_MALFORMED' } });
    expect(phoenixAnnotationOf(results[0]!)!.result.score).toBeUndefined();
    expect(langfuseScoreOf(results[0]!)).toBeUndefined();
  });
});

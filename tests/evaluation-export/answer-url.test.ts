/**
 * `evaluationExport.answerUrlTemplate` (issue 52, docs/answers.md): every exported result links to
 * ragwatch's page of its answer — an OTLP attribute, Phoenix and Langfuse metadata — and the writers'
 * settlements reach the trail's listener.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.ts';
import { loadConfig } from '../../src/config/load.ts';
import { answerUrlOf } from '../../src/evaluation-export/create.ts';
import { EvaluationExportSink } from '../../src/evaluation-export/export-sink.ts';
import { langfuseScoreOf } from '../../src/evaluation-export/langfuse-writer.ts';
import { evaluationAttributes } from '../../src/evaluation-export/otlp-log-records.ts';
import { phoenixAnnotationOf } from '../../src/evaluation-export/phoenix-writer.ts';
import type { EvaluationResult, EvaluationWriter } from '../../src/evaluation-export/types.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const record: ScoreRecord = {
  tripletId: 't1', traceId: TRACE, service: 'svc', stratum: 'all', weight: 1, timestamp: '2026-11-01T10:00:00.000Z', judge: { kind: 'llm' },
  scores: { groundedness: 0.4 }, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [], usage: { calls: 1, inputTokens: 1, outputTokens: 1, durationMs: 1 },
};
const triplet: SampledTriplet = { id: 't1', traceId: TRACE, spanId: 'b7ad6b7169203331', service: 'svc', timestamp: record.timestamp, query: 'q', sources: [{ content: 's' }], response: 'r', latency: { durationMs: 1 }, convention: 'genai', sampling: { weight: 1, stratum: 'all', rule: 'rate' } };

function sinkWith(answerUrlOf?: (t: string) => string) {
  const written: EvaluationResult[] = [];
  const writer: EvaluationWriter = { name: 'w', write: (r) => void written.push(...r), forceFlush: () => Promise.resolve(), shutdown: () => Promise.resolve() };
  const sink = new EvaluationExportSink({ writers: [writer], select: 'all', labelOf: () => undefined, maxExplanationChars: 100, redact: (t) => [...t], metricsOf: () => ['groundedness'], ...(answerUrlOf ? { answerUrlOf } : {}) });
  return { sink, written };
}

describe('evaluationExport.answerUrlTemplate', () => {
  it('puts the answer page on every result, the trace id URL-encoded, scored or failed', () => {
    const { sink, written } = sinkWith(answerUrlOf('https://ragwatch.example.com/answers/{traceId}'));
    sink.onRecord(record, triplet);
    sink.onFailure({ judge: { kind: 'llm' }, reason: 'RAGWATCH_JUDGE_MALFORMED', timeMs: 1 }, triplet);
    expect(written.map((r) => r.answerUrl)).toEqual([`https://ragwatch.example.com/answers/${TRACE}`, `https://ragwatch.example.com/answers/${TRACE}`]);
    const r = written[0]!;
    expect(evaluationAttributes(r)).toContainEqual({ key: 'ragwatch.answer.url', value: { stringValue: `https://ragwatch.example.com/answers/${TRACE}` } });
    expect(phoenixAnnotationOf(r)?.metadata.answer_url).toBe(r.answerUrl);
    expect(langfuseScoreOf(r)?.metadata.answer_url).toBe(r.answerUrl);
  });

  it('is left out without a template', () => {
    const { sink, written } = sinkWith();
    sink.onRecord(record, triplet);
    expect(written[0]!.answerUrl).toBeUndefined();
    expect(evaluationAttributes(written[0]!).some((a) => a.key === 'ragwatch.answer.url')).toBe(false);
  });

  it('must be an http(s) URL holding {traceId}', () => {
    expect(loadConfig({ env: {}, overrides: { evaluationExport: { answerUrlTemplate: 'https://r.example.com/answers/{traceId}' } } }).evaluationExport.answerUrlTemplate).toBe('https://r.example.com/answers/{traceId}');
    expect(() => loadConfig({ env: {}, overrides: { evaluationExport: { answerUrlTemplate: 'https://r.example.com/answers/' } } })).toThrow(ConfigError);
    expect(() => loadConfig({ env: {}, overrides: { evaluationExport: { answerUrlTemplate: 'javascript:alert(1)//{traceId}' } } })).toThrow(ConfigError);
  });
});

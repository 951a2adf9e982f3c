/**
 * The Phoenix writer: evaluation results as span annotations (`POST /v1/span_annotations?sync=false`,
 * `{data: [{span_id, name, annotator_kind, result: {score, label, explanation}, metadata, identifier}]}`),
 * because Phoenix does not turn `gen_ai.evaluation.result` events into annotations. The identifier is
 * `ragwatch-<judge>`: Phoenix upserts on (name, span, identifier), so a re-scored answer replaces its
 * annotation and the LLM and embedded judges' annotations of one metric stand side by side. With
 * `sync=false` Phoenix queues an annotation whose span it has not received yet.
 * @module
 */
import type { EvaluationExportConfig } from '../config/sections/evaluation-export.ts';
import { BatchWriter, type BatchOutcome, type ExportInstruments } from './batch-writer.ts';
import { postExport } from './http-transport.ts';
import { sendWithRetry } from './retry.ts';
import type { EvaluationResult, SendOutcome } from './types.ts';

/** One annotation as Phoenix's `SpanAnnotationData`. */
export interface PhoenixSpanAnnotation {
  span_id: string;
  name: string;
  annotator_kind: 'LLM' | 'CODE';
  result: { score?: number; label?: string; explanation?: string };
  metadata: Record<string, string>;
  identifier: string;
}

/** The annotation of one result; undefined for a result with nothing to say (a skipped metric has its reason as the explanation). */
export function phoenixAnnotationOf(r: EvaluationResult): PhoenixSpanAnnotation | undefined {
  if (!/^[0-9a-f]{16}$/.test(r.spanId)) return undefined;
  const result: PhoenixSpanAnnotation['result'] = {};
  if (r.scoreValue !== undefined) result.score = r.scoreValue;
  if (r.scoreLabel !== undefined) result.label = r.scoreLabel;
  if (r.explanation !== undefined && r.explanation !== '') result.explanation = r.explanation;
  if (r.errorType !== undefined) result.explanation = `not scored: ${r.errorType}`;
  const metadata: Record<string, string> = { source: 'ragwatch', trace_id: r.traceId, judge: r.judge.kind, triplet_id: r.tripletId, service: r.service };
  if (r.judge.model !== undefined) metadata.judge_model = r.judge.model;
  if (r.responseId !== undefined) metadata.response_id = r.responseId;
  if (r.errorType !== undefined) metadata.error_type = r.errorType;
  if (r.answerUrl !== undefined) metadata.answer_url = r.answerUrl;
  return { span_id: r.spanId, name: r.name, annotator_kind: r.judge.kind === 'embedded' ? 'CODE' : 'LLM', result, metadata, identifier: `ragwatch-${r.judge.kind}` };
}

/** Options of {@link createPhoenixWriter}. */
export interface PhoenixWriterOptions {
  config: EvaluationExportConfig['phoenix'] & { endpoint: string };
  instruments: ExportInstruments;
  shutdownGraceMs?: number;
  onFirstDrop?: (writer: string) => void;
  onFailure?: (error: string) => void;
}

/** A batch writer posting span annotations to Phoenix. */
export function createPhoenixWriter(options: PhoenixWriterOptions): BatchWriter {
  const c = options.config;
  const url = `${c.endpoint.replace(/\/+$/, '')}/v1/span_annotations?sync=false`;
  const headers: Record<string, string> = c.apiKey ? { Authorization: `Bearer ${c.apiKey}` } : {};
  const exportBatch = async (batch: readonly EvaluationResult[], signal: AbortSignal): Promise<BatchOutcome> => {
    const data = batch.map(phoenixAnnotationOf).filter((a): a is PhoenixSpanAnnotation => a !== undefined);
    const unparented = batch.length - data.length;
    if (data.length === 0) return { exported: 0, dropped: [{ count: unparented, reason: 'rejected' }] };
    const body = JSON.stringify({ data });
    const send = async (s: AbortSignal): Promise<SendOutcome> => {
      const r = await postExport({ url, body, contentType: 'application/json', headers, timeoutMs: c.timeoutMs }, s);
      return r.status === 'success' ? { status: 'success' } : r;
    };
    const { outcome, exhausted } = await sendWithRetry(send, c.retry, signal, { onRetry: () => options.instruments.retries.inc({ writer: 'phoenix' }) });
    if (outcome.status !== 'success') {
      options.onFailure?.(outcome.error);
      return { exported: 0, dropped: [{ count: batch.length, reason: exhausted || outcome.status === 'retryable' ? 'retries_exhausted' : 'rejected' }] };
    }
    return { exported: data.length, dropped: [{ count: unparented, reason: 'rejected' }] };
  };
  return new BatchWriter({
    name: 'phoenix',
    instruments: options.instruments,
    maxQueueSize: c.maxQueueSize,
    maxBatchSize: c.maxBatchSize,
    scheduledDelayMs: c.scheduledDelayMs,
    exportBatch,
    ...(options.shutdownGraceMs !== undefined ? { shutdownGraceMs: options.shutdownGraceMs } : {}),
    ...(options.onFirstDrop ? { onFirstDrop: options.onFirstDrop } : {}),
  });
}

/**
 * The Langfuse writer: one numeric score per evaluation result through Langfuse's public API
 * (`POST /api/public/scores`, Basic auth with the project's public and secret key), on the trace and
 * observation Langfuse made from the OTel trace and span ids. The score id is derived from the
 * triplet, metric and judge, so a resent or re-scored result updates its score instead of adding one.
 * A skipped metric has no score in Langfuse's model and is not sent. (The batch ingestion endpoint is
 * deprecated, so scores go one request each, `concurrency` at a time.)
 * @module
 */
import { createHash } from 'node:crypto';
import type { EvaluationExportConfig } from '../config/sections/evaluation-export.ts';
import { BatchWriter, type BatchOutcome, type ExportInstruments } from './batch-writer.ts';
import { postExport } from './http-transport.ts';
import { sendWithRetry } from './retry.ts';
import type { EvaluationResult, EvaluationWriter, SendOutcome } from './types.ts';

/** One score as Langfuse's `CreateScoreRequest`. */
export interface LangfuseScore {
  id: string;
  traceId: string;
  observationId?: string;
  name: string;
  value: number;
  dataType: 'NUMERIC';
  comment?: string;
  metadata: Record<string, string>;
  environment?: string;
}

/** The score of one result; undefined for a skipped metric (no value). */
export function langfuseScoreOf(r: EvaluationResult, environment?: string): LangfuseScore | undefined {
  if (r.scoreValue === undefined) return undefined;
  const metadata: Record<string, string> = { source: 'ragwatch', judge: r.judge.kind, triplet_id: r.tripletId, service: r.service };
  if (r.judge.model !== undefined) metadata.judge_model = r.judge.model;
  if (r.scoreLabel !== undefined) metadata.label = r.scoreLabel;
  if (r.responseId !== undefined) metadata.response_id = r.responseId;
  if (r.answerUrl !== undefined) metadata.answer_url = r.answerUrl;
  const score: LangfuseScore = {
    id: `ragwatch-${createHash('sha256').update(`${r.tripletId}\u0000${r.name}\u0000${r.judge.kind}`).digest('hex').slice(0, 32)}`,
    traceId: r.traceId,
    name: r.name,
    value: r.scoreValue,
    dataType: 'NUMERIC',
    metadata,
  };
  if (/^[0-9a-f]{16}$/.test(r.spanId)) score.observationId = r.spanId;
  if (r.explanation !== undefined && r.explanation !== '') score.comment = r.explanation;
  if (environment !== undefined) score.environment = environment;
  return score;
}

/** Options of {@link createLangfuseWriter}. */
export interface LangfuseWriterOptions {
  config: EvaluationExportConfig['langfuse'] & { baseUrl: string; publicKey: string; secretKey: string };
  instruments: ExportInstruments;
  shutdownGraceMs?: number;
  onFirstDrop?: (writer: string) => void;
  onFailure?: (error: string) => void;
}

/** Runs `work` over `items` with at most `limit` at once. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

/** A writer posting scores to Langfuse (skipped metrics are filtered out before they are queued). */
export function createLangfuseWriter(options: LangfuseWriterOptions): EvaluationWriter {
  const c = options.config;
  const url = `${c.baseUrl.replace(/\/+$/, '')}/api/public/scores`;
  const headers = { Authorization: `Basic ${Buffer.from(`${c.publicKey}:${c.secretKey}`).toString('base64')}` };
  const exportBatch = async (batch: readonly EvaluationResult[], signal: AbortSignal): Promise<BatchOutcome> => {
    const counts = { exported: 0, rejected: 0, exhausted: 0 };
    await eachLimited(batch, c.concurrency, async (r) => {
      const score = langfuseScoreOf(r, c.environment);
      if (!score) return;
      const body = JSON.stringify(score);
      const send = async (s: AbortSignal): Promise<SendOutcome> => {
        const res = await postExport({ url, body, contentType: 'application/json', headers, timeoutMs: c.timeoutMs }, s);
        return res.status === 'success' ? { status: 'success' } : res;
      };
      const { outcome, exhausted } = await sendWithRetry(send, c.retry, signal, { onRetry: () => options.instruments.retries.inc({ writer: 'langfuse' }) });
      if (outcome.status === 'success') counts.exported++;
      else {
        options.onFailure?.(outcome.error);
        if (exhausted || outcome.status === 'retryable') counts.exhausted++;
        else counts.rejected++;
      }
    });
    return { exported: counts.exported, dropped: [{ count: counts.rejected, reason: 'rejected' }, { count: counts.exhausted, reason: 'retries_exhausted' }] };
  };
  const writer = new BatchWriter({
    name: 'langfuse',
    instruments: options.instruments,
    maxQueueSize: c.maxQueueSize,
    maxBatchSize: Math.max(c.concurrency, 32),
    scheduledDelayMs: c.scheduledDelayMs,
    exportBatch,
    ...(options.shutdownGraceMs !== undefined ? { shutdownGraceMs: options.shutdownGraceMs } : {}),
    ...(options.onFirstDrop ? { onFirstDrop: options.onFirstDrop } : {}),
  });
  return {
    name: writer.name,
    write: (results) => writer.write(results.filter((r) => r.scoreValue !== undefined)),
    forceFlush: () => writer.forceFlush(),
    shutdown: () => writer.shutdown(),
  };
}

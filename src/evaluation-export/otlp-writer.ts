/**
 * The OTLP writer: evaluation results as `gen_ai.evaluation.result` log records to any OTLP logs
 * receiver (an OpenTelemetry Collector, then Tempo, Loki, Elastic …) over `http/protobuf`,
 * `http/json` or `grpc`, batched and retried per the OTLP specification. A partial success counts its
 * rejected records as dropped.
 * @module
 */
import type { EvaluationExportConfig } from '../config/sections/evaluation-export.ts';
import { BatchWriter, type BatchOutcome, type ExportInstruments } from './batch-writer.ts';
import { GrpcLogsTransport } from './grpc-transport.ts';
import { postExport } from './http-transport.ts';
import { encodeLogsBody, partialSuccessOf, type RecordIdentity } from './otlp-log-records.ts';
import { sendWithRetry } from './retry.ts';
import type { EvaluationResult, SendOutcome } from './types.ts';

/** Options of {@link createOtlpWriter}. */
export interface OtlpWriterOptions {
  config: EvaluationExportConfig['otlp'] & { endpoint: string };
  instruments: ExportInstruments;
  identity: RecordIdentity;
  shutdownGraceMs?: number;
  onFirstDrop?: (writer: string) => void;
  /** Told of a batch given up (logged by the role, rate-limited there). */
  onFailure?: (error: string) => void;
}

/** The outcome of one batch from the last attempt's outcome. */
function batchOutcome(n: number, outcome: SendOutcome, exhausted: boolean): BatchOutcome {
  if (outcome.status === 'success') {
    const rejected = Math.min(n, Math.max(0, outcome.rejected ?? 0));
    return { exported: n - rejected, dropped: [{ count: rejected, reason: 'partial_rejected' }] };
  }
  return { exported: 0, dropped: [{ count: n, reason: exhausted || outcome.status === 'retryable' ? 'retries_exhausted' : 'rejected' }] };
}

/** A batch writer sending OTLP log records (the gRPC channel is closed with it). */
export function createOtlpWriter(options: OtlpWriterOptions): BatchWriter {
  const c = options.config;
  const json = c.protocol === 'http/json';
  const grpc = c.protocol === 'grpc' ? new GrpcLogsTransport({ endpoint: c.endpoint, headers: c.headers, compression: c.compression, insecure: c.insecure }) : undefined;
  const exportBatch = async (batch: readonly EvaluationResult[], signal: AbortSignal): Promise<BatchOutcome> => {
    const body = encodeLogsBody(batch, options.identity, json);
    const send = async (s: AbortSignal): Promise<SendOutcome> => {
      if (grpc) {
        const r = await grpc.send(body as Uint8Array, c.timeoutMs, s);
        if (r.status !== 'success') return r;
        const partial = r.response ? partialSuccessOf(r.response, false) : undefined;
        return partial ? { status: 'success', rejected: partial.rejected, message: partial.errorMessage } : { status: 'success' };
      }
      const r = await postExport({ url: c.endpoint, body, contentType: json ? 'application/json' : 'application/x-protobuf', headers: c.headers, compression: c.compression, timeoutMs: c.timeoutMs }, s);
      if (r.status !== 'success') return r;
      const partial = partialSuccessOf(r.body, json);
      return partial ? { status: 'success', rejected: partial.rejected, message: partial.errorMessage } : { status: 'success' };
    };
    const { outcome, exhausted } = await sendWithRetry(send, c.retry, signal, { onRetry: () => options.instruments.retries.inc({ writer: 'otlp' }) });
    if (outcome.status !== 'success') options.onFailure?.(outcome.error);
    return batchOutcome(batch.length, outcome, exhausted);
  };
  return new BatchWriter({
    name: 'otlp',
    instruments: options.instruments,
    maxQueueSize: c.maxQueueSize,
    maxBatchSize: c.maxBatchSize,
    scheduledDelayMs: c.scheduledDelayMs,
    exportBatch,
    onClosed: () => grpc?.close(),
    ...(options.shutdownGraceMs !== undefined ? { shutdownGraceMs: options.shutdownGraceMs } : {}),
    ...(options.onFirstDrop ? { onFirstDrop: options.onFirstDrop } : {}),
  });
}

/** OTLP/JSON load for the fault cases: batches of OpenInference RAG traces with unique trace ids. */
import { CLOCK_TOWER, openInferenceTrace, type RagRequest } from '../helpers/otlp.ts';

/** One OTLP/JSON export body holding `traces` RAG traces (3 spans each). */
export function batchBody(traces: number, request: RagRequest = CLOCK_TOWER): string {
  const resourceSpans: unknown[] = [];
  for (let i = 0; i < traces; i++) {
    const { body } = openInferenceTrace({ ...request, traceId: undefined });
    resourceSpans.push(...(body.resourceSpans as unknown[]));
  }
  return JSON.stringify({ resourceSpans });
}

/** Outcome counts of the requests sent. */
export interface SendStats {
  sent: number;
  byStatus: Record<string, number>;
  /** Traces in requests answered 200 (accepted by ingest). */
  acceptedTraces: number;
}

/** POSTs one body; records the status (or `error`). */
export async function post(url: string, body: string, traces: number, stats: SendStats): Promise<number> {
  stats.sent++;
  let status: number | 'error';
  try {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    await res.arrayBuffer();
    status = res.status;
  } catch {
    status = 'error';
  }
  stats.byStatus[String(status)] = (stats.byStatus[String(status)] ?? 0) + 1;
  if (status === 200) stats.acceptedTraces += traces;
  return status === 'error' ? 0 : status;
}

/** Percentile (nearest rank) of a list of numbers. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

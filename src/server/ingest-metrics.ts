/**
 * Records ingest outcomes into the pipeline's instruments.
 * @module
 */
import type { Instruments } from '../telemetry/instruments.ts';
import type { IngestOutcome } from './ingest-app.ts';

/**
 * Counts the request in `ragwatch_ingest_requests_total{endpoint,status,reason}` and items
 * rejected individually (partial success) in `ragwatch_dropped_total{stage="ingest"}`.
 */
export function recordIngestOutcome(instruments: Pick<Instruments, 'ingestRequests' | 'dropped'>, outcome: IngestOutcome): void {
  instruments.ingestRequests.inc({ endpoint: outcome.endpoint, transport: outcome.transport, status: String(outcome.status), reason: outcome.reason });
  if (outcome.rejected > 0) {
    const reason = outcome.endpoint === '/v1/traces' ? 'invalid_span' : outcome.endpoint === '/v1/logs' ? 'invalid_log_record' : 'invalid_triplet';
    instruments.dropped.inc({ stage: 'ingest', reason }, outcome.rejected);
  }
}

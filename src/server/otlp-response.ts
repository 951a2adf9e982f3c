/**
 * OTLP/HTTP responses in the request's encoding: ExportTraceServiceResponse /
 * ExportLogsServiceResponse on success, `google.rpc.Status` on failure, as JSON or protobuf.
 * @module
 */
import type { OtlpMediaType } from '../capture/otlp/decode.ts';
import { encodeLogsResponse, encodeStatus, encodeTraceResponse, type PartialSuccess } from '../capture/otlp/protobuf.ts';

/** The two OTLP signals ragwatch ingests. */
export type OtlpSignal = 'traces' | 'logs';

/** HTTP statuses the ingest endpoints answer with. */
export type IngestStatus = 200 | 202 | 400 | 401 | 403 | 408 | 413 | 415 | 429 | 500 | 503;

/** google.rpc.Code for each HTTP status (HTTP is what OTLP/HTTP clients act on). */
const RPC_CODE: Record<IngestStatus, number> = {
  200: 0, // OK
  202: 0, // OK (feedback accepted)
  400: 3, // INVALID_ARGUMENT
  401: 16, // UNAUTHENTICATED
  403: 7, // PERMISSION_DENIED
  408: 4, // DEADLINE_EXCEEDED
  413: 3, // INVALID_ARGUMENT: the same data will never fit
  415: 3,
  429: 8, // RESOURCE_EXHAUSTED
  500: 13, // INTERNAL
  503: 14, // UNAVAILABLE
};

/** The media type to answer in: protobuf only when the request said so, else JSON. */
export function responseMediaType(contentType: string | undefined): OtlpMediaType {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase() === 'application/x-protobuf' ? 'application/x-protobuf' : 'application/json';
}

function respond(body: string | Uint8Array, status: IngestStatus, type: OtlpMediaType, headers: Record<string, string>): Response {
  return new Response(typeof body === 'string' ? body : new Uint8Array(body), { status, headers: { 'Content-Type': type, ...headers } });
}

/** A success response, with `partialSuccess` when some items were rejected. */
export function exportResponse(signal: OtlpSignal, type: OtlpMediaType, partial?: PartialSuccess): Response {
  if (type === 'application/x-protobuf') {
    return respond(signal === 'traces' ? encodeTraceResponse(partial) : encodeLogsResponse(partial), 200, type, {});
  }
  if (!partial) return respond('{}', 200, type, {});
  const rejectedKey = signal === 'traces' ? 'rejectedSpans' : 'rejectedLogRecords';
  // int64 is a string in OTLP/JSON.
  return respond(JSON.stringify({ partialSuccess: { [rejectedKey]: String(partial.rejected), errorMessage: partial.errorMessage } }), 200, type, {});
}

/** An error response: a `google.rpc.Status` with the reason, plus any extra headers (Retry-After). */
export function errorResponse(status: Exclude<IngestStatus, 200>, type: OtlpMediaType, message: string, headers: Record<string, string> = {}): Response {
  const code = RPC_CODE[status];
  const body = type === 'application/x-protobuf' ? encodeStatus(code, message) : JSON.stringify({ code, message });
  return respond(body, status, type, headers);
}

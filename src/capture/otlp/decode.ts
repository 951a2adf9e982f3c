/**
 * The single entry point for OTLP export bodies (HTTP ingest and `ragwatch extract` share it):
 * bytes + media type → spans or log records in ragwatch's span model.
 *
 * - `application/json`: OTLP/JSON (camelCase or snake_case keys; ids as hex; int64 as string or
 *   number), strict UTF-8.
 * - `application/x-protobuf`: binary ExportTraceServiceRequest / ExportLogsServiceRequest.
 *
 * Bodies must already be decompressed. Errors are {@link OtlpDecodeError}s: 415 for an
 * unsupported media type, 400 for bad data (with the reason); items rejected individually are
 * reported in `rejected` / `errorMessage` (OTLP partial success).
 * @module
 */
import { OtlpDecodeError } from '../../errors.ts';
import { parseOtlpJson } from './json.ts';
import { decodeLogsRequest, type DecodedLogs } from './logs.ts';
import { decodeLogsRequestProtobuf, decodeTraceRequestProtobuf } from './protobuf.ts';
import { decodeTraceRequest, type DecodedTraces } from './traces.ts';

export type { DecodedLogs } from './logs.ts';
export type { DecodedTraces } from './traces.ts';

/** Media types OTLP/HTTP defines. */
export const OTLP_MEDIA_TYPES = ['application/json', 'application/x-protobuf'] as const;
/** One of {@link OTLP_MEDIA_TYPES}. */
export type OtlpMediaType = (typeof OTLP_MEDIA_TYPES)[number];

/**
 * The OTLP media type of a `Content-Type` header (parameters and case ignored).
 * Throws OtlpDecodeError 415 for anything else, including a missing header.
 */
export function otlpMediaType(contentType: string | undefined): OtlpMediaType {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/json' || type === 'application/x-protobuf') return type;
  throw new OtlpDecodeError(`unsupported Content-Type "${type || '(none)'}"; use application/json or application/x-protobuf`, 415);
}

/** Decodes an OTLP trace export body (already decompressed). Throws OtlpDecodeError. */
export function decodeTraces(body: Buffer, mediaType: OtlpMediaType): DecodedTraces {
  return decodeTraceRequest(mediaType === 'application/json' ? parseOtlpJson(body) : decodeTraceRequestProtobuf(body));
}

/** Decodes an OTLP logs export body (already decompressed). Throws OtlpDecodeError. */
export function decodeLogs(body: Buffer, mediaType: OtlpMediaType): DecodedLogs {
  return decodeLogsRequest(mediaType === 'application/json' ? parseOtlpJson(body) : decodeLogsRequestProtobuf(body));
}

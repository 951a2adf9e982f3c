/**
 * OTLP protobuf encoding with protobufjs (reflection over {@link OTLP_DESCRIPTOR}): decodes
 * export requests into protobufjs messages that the shared walkers (`traces.ts`, `logs.ts`)
 * read like parsed OTLP/JSON, and encodes the export responses and `google.rpc.Status`.
 *
 * Hostile input: protobufjs stops at 100 nested messages (its `recursionLimit`, protoc's
 * default) and checks every length against the buffer; string fields are checked to be valid
 * UTF-8 (proto3 requires it; protobufjs alone would substitute U+FFFD). Every failure becomes an
 * {@link OtlpDecodeError} with status 400.
 * @module
 */
import { isUtf8 } from 'node:buffer';
import protobuf from 'protobufjs/light.js';
import { OtlpDecodeError, errorMessage } from '../../errors.ts';
import { OTLP_DESCRIPTOR } from './proto/schema.ts';

const root = protobuf.Root.fromJSON(OTLP_DESCRIPTOR).resolveAll();
// protobufjs puts every field's default on the message prototype, so an unset oneof member
// would read as '' / 0 / false. Unset AnyValue members must read as undefined, as in parsed
// JSON, for the shared walker; resolveAll() above has already written the defaults once.
const ANY_VALUE = root.lookupType('opentelemetry.proto.common.v1.AnyValue');
for (const member of ANY_VALUE.oneofs.value!.fieldsArray) (ANY_VALUE.ctor.prototype as Record<string, unknown>)[member.name] = undefined;
const TRACE_REQUEST = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');
const TRACE_RESPONSE = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse');
const LOGS_REQUEST = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest');
const LOGS_RESPONSE = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse');
const STATUS = root.lookupType('google.rpc.Status');
const RETRY_INFO = root.lookupType('google.rpc.RetryInfo');

/** A protobufjs reader that rejects string fields which are not valid UTF-8. */
class StrictUtf8Reader extends protobuf.BufferReader {
  override string(): string {
    const bytes = this.bytes() as Buffer;
    if (!isUtf8(bytes)) throw new OtlpDecodeError('a string field is not valid UTF-8');
    return bytes.toString('utf8');
  }
}

function decodeWith(type: protobuf.Type, body: Buffer, what: string): unknown {
  try {
    return type.decode(new StrictUtf8Reader(body));
  } catch (err) {
    if (err instanceof OtlpDecodeError) throw err;
    // RangeError included: truncated lengths and, defensively, a blown stack.
    throw new OtlpDecodeError(`body is not a valid ${what} protobuf: ${errorMessage(err)}`, 400, { cause: err });
  }
}

/** Decodes a binary ExportTraceServiceRequest into protobufjs messages (camelCase fields). */
export function decodeTraceRequestProtobuf(body: Buffer): unknown {
  return decodeWith(TRACE_REQUEST, body, 'ExportTraceServiceRequest');
}

/** Decodes a binary ExportLogsServiceRequest into protobufjs messages (camelCase fields). */
export function decodeLogsRequestProtobuf(body: Buffer): unknown {
  return decodeWith(LOGS_REQUEST, body, 'ExportLogsServiceRequest');
}

/** Partial-success details of an export response; absent = everything accepted. */
export interface PartialSuccess {
  /** Spans or log records rejected. */
  rejected: number;
  errorMessage: string;
}

/** Encodes an ExportTraceServiceResponse (empty when everything was accepted). */
export function encodeTraceResponse(partial?: PartialSuccess): Uint8Array {
  const message = partial ? { partialSuccess: { rejectedSpans: partial.rejected, errorMessage: partial.errorMessage } } : {};
  return TRACE_RESPONSE.encode(TRACE_RESPONSE.fromObject(message)).finish();
}

/** Encodes an ExportLogsServiceResponse (empty when everything was accepted). */
export function encodeLogsResponse(partial?: PartialSuccess): Uint8Array {
  const message = partial ? { partialSuccess: { rejectedLogRecords: partial.rejected, errorMessage: partial.errorMessage } } : {};
  return LOGS_RESPONSE.encode(LOGS_RESPONSE.fromObject(message)).finish();
}

/**
 * Encodes an ExportLogsServiceRequest given as a plain object with this descriptor's field names
 * (ids as bytes, 64-bit times as decimal strings): the evaluation export's OTLP/protobuf and OTLP/gRPC body.
 */
export function encodeLogsRequest(request: Record<string, unknown>): Uint8Array {
  return LOGS_REQUEST.encode(LOGS_REQUEST.fromObject(request)).finish();
}

/** The partial success of an ExportLogsServiceResponse (undefined when everything was accepted); throws on a malformed body. */
export function decodeLogsResponse(body: Uint8Array): PartialSuccess | undefined {
  const response = LOGS_RESPONSE.toObject(LOGS_RESPONSE.decode(body), { longs: Number, defaults: false }) as { partialSuccess?: { rejectedLogRecords?: number; errorMessage?: string } };
  const p = response.partialSuccess;
  if (!p || (!p.rejectedLogRecords && !p.errorMessage)) return undefined;
  return { rejected: p.rejectedLogRecords ?? 0, errorMessage: p.errorMessage ?? '' };
}

/** Encodes a `google.rpc.Status` (the OTLP/HTTP error body). */
export function encodeStatus(code: number, message: string): Uint8Array {
  return STATUS.encode(STATUS.fromObject({ code, message })).finish();
}

/**
 * Encodes a `google.rpc.Status` carrying a `google.rpc.RetryInfo` (OTLP/gRPC's `grpc-status-details-bin`
 * trailer: the server tells a throttled exporter how long to wait before it retries).
 */
export function encodeStatusWithRetry(code: number, message: string, retryAfterSeconds: number): Uint8Array {
  const retry = RETRY_INFO.encode(RETRY_INFO.fromObject({ retryDelay: { seconds: Math.floor(retryAfterSeconds), nanos: Math.round((retryAfterSeconds % 1) * 1e9) } })).finish();
  return STATUS.encode(STATUS.fromObject({ code, message, details: [{ typeUrl: 'type.googleapis.com/google.rpc.RetryInfo', value: retry }] })).finish();
}

/** The retry delay of a `google.rpc.Status`'s RetryInfo, in seconds; undefined without one (for clients and tests). */
export function decodeRetryDelaySeconds(body: Uint8Array): number | undefined {
  const status = STATUS.decode(body) as unknown as { details?: Array<{ typeUrl: string; value: Uint8Array }> };
  const any = status.details?.find((d) => d.typeUrl === 'type.googleapis.com/google.rpc.RetryInfo');
  if (!any) return undefined;
  const info = RETRY_INFO.decode(any.value) as unknown as { retryDelay?: { seconds?: number | { toNumber(): number }; nanos?: number } };
  const s = info.retryDelay?.seconds;
  return (typeof s === 'object' ? s.toNumber() : (s ?? 0)) + (info.retryDelay?.nanos ?? 0) / 1e9;
}

/** Decodes a `google.rpc.Status` (for clients and tests). */
export function decodeStatus(body: Uint8Array): { code: number; message: string } {
  const status = STATUS.toObject(STATUS.decode(body), { defaults: true }) as { code: number; message: string };
  return { code: status.code, message: status.message };
}

/**
 * One Kafka message of an OTLP topic → spans or log records. The OpenTelemetry Collector's `kafka`
 * exporter (contrib `exporter/kafkaexporter`, checked at v0.148.0: `marshaler.go`,
 * `internal/marshaler/pdata_marshaler.go`, `internal/kafkaclient/franzgo.go`) writes each exported
 * batch as ONE message whose value is the pdata marshaler's output — `ptrace.ProtoMarshaler` /
 * `plog.ProtoMarshaler` for `otlp_proto` (the bytes of `TracesData` / `LogsData`, field for field the
 * `ExportTraceServiceRequest` / `ExportLogsServiceRequest` wire format), `JSONMarshaler` for
 * `otlp_json` (OTLP/JSON with hex ids) — with `partition_traces_by_id: true` one message per trace,
 * keyed by the trace id in hex; otherwise no key. It sets no headers (only `include_metadata_keys`
 * adds the client's metadata), so the encoding is configured or recognised from the bytes: a JSON
 * document starts with `{`, a protobuf request with a field tag (`{` would be field 15 as a group,
 * which neither message has).
 * Pure: never throws; the decoders' own limits (nesting depth, UTF-8) hold as for OTLP/HTTP.
 * @module
 */
import type { IHeaders } from 'kafkajs';
import { decodeLogs, decodeTraces, type OtlpMediaType } from '../capture/otlp/decode.ts';
import type { CapturedLog, CapturedSpan } from '../capture/types.ts';
import { errorMessage } from '../errors.ts';
import { headerValue } from '../transport/kafka-poison.ts';
import { refusalOf } from '../transport/kafka-refused-batch.ts';

/** `ingest.kafka.encoding`. */
export type OtlpTopicEncoding = 'auto' | 'otlp_proto' | 'otlp_json';

/** What an OTLP topic carries. */
export type OtlpTopicSignal = 'traces' | 'logs';

/** Why a message was refused (the DLQ `reason` header and the outcome). */
export type OtlpMessageRefusal = 'too_large' | 'invalid_otlp' | 'unsupported_content_type' | 'batch_too_large' | 'bad_compression';

/** A decoded message, or why it cannot be. */
export type OtlpMessageResult =
  | { ok: true; encoding: 'otlp_proto' | 'otlp_json'; spans: CapturedSpan[]; logs: CapturedLog[]; rejected: number; errorMessage?: string }
  | { ok: false; reason: OtlpMessageRefusal; error: string };

const OPEN_BRACE = 0x7b;

/** The encoding of one message: the configured one, else its `content-type` header, else its first byte. */
export function messageEncoding(value: Buffer, headers: IHeaders | undefined, configured: OtlpTopicEncoding): 'otlp_proto' | 'otlp_json' | { unsupported: string } {
  if (configured !== 'auto') return configured;
  const declared = headerValue(headers, 'content-type');
  if (declared !== undefined) {
    const type = declared.split(';')[0]!.trim().toLowerCase();
    if (type === 'application/json') return 'otlp_json';
    if (type === 'application/x-protobuf' || type === 'application/protobuf') return 'otlp_proto';
    return { unsupported: type.slice(0, 100) };
  }
  return value.length > 0 && value[0] === OPEN_BRACE ? 'otlp_json' : 'otlp_proto';
}

const MEDIA: Record<'otlp_proto' | 'otlp_json', OtlpMediaType> = { otlp_proto: 'application/x-protobuf', otlp_json: 'application/json' };

/**
 * Decodes one message of a traces or logs topic. An absent or empty value is an empty export request
 * (protobuf encodes one as zero bytes). Spans without valid ids are rejected one by one (counted as
 * `rejected`), as OTLP partial success does.
 */
export function decodeOtlpMessage(message: { value: Buffer | null; headers?: IHeaders }, signal: OtlpTopicSignal, configured: OtlpTopicEncoding, maxBytes: number): OtlpMessageResult {
  // A record of a batch the codec refused (too large once inflated, or malformed): no message to decode.
  const refused = refusalOf(message);
  if (refused) return { ok: false, ...refused };
  const value = message.value ?? Buffer.alloc(0);
  if (value.length > maxBytes) return { ok: false, reason: 'too_large', error: `value is ${value.length} bytes, ingest.kafka.maxMessageBytes is ${maxBytes}` };
  const encoding = messageEncoding(value, message.headers, configured);
  if (typeof encoding === 'object') return { ok: false, reason: 'unsupported_content_type', error: `content-type header "${encoding.unsupported}": expected application/x-protobuf or application/json (or set ingest.kafka.encoding)` };
  if (value.length === 0 && encoding === 'otlp_proto') return { ok: true, encoding, spans: [], logs: [], rejected: 0 };
  try {
    if (signal === 'traces') {
      const decoded = decodeTraces(value, MEDIA[encoding]);
      return { ok: true, encoding, spans: decoded.spans, logs: [], rejected: decoded.rejected, ...(decoded.errorMessage !== undefined ? { errorMessage: decoded.errorMessage } : {}) };
    }
    const decoded = decodeLogs(value, MEDIA[encoding]);
    return { ok: true, encoding, spans: [], logs: decoded.logs, rejected: decoded.rejected, ...(decoded.errorMessage !== undefined ? { errorMessage: decoded.errorMessage } : {}) };
  } catch (err) {
    const what = signal === 'traces' ? 'an OTLP trace export' : 'an OTLP logs export';
    return { ok: false, reason: 'invalid_otlp', error: `not ${what} in ${encoding}: ${errorMessage(err)}` };
  }
}

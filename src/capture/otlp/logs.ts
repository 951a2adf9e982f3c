/**
 * ExportLogsServiceRequest (parsed OTLP/JSON or protobufjs messages) → {@link CapturedLog}s.
 * A record whose trace/span id is present but malformed is rejected individually (OTLP partial
 * success); a record without ids is kept (it simply joins no span).
 * @module
 */
import { anyValue, attributesOf, field, nanosToMs } from './any-value.ts';
import { normaliseId } from './traces.ts';
import { OtlpDecodeError } from '../../errors.ts';
import type { CapturedLog } from '../types.ts';

/** Result of decoding a logs export request. */
export interface DecodedLogs {
  logs: CapturedLog[];
  /** Log records rejected (malformed ids), reported as OTLP partial success. */
  rejected: number;
  /** First rejection reason, for `partialSuccess.errorMessage`. */
  errorMessage?: string;
}

type Obj = Record<string, unknown>;

function asObj(v: unknown): Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : {};
}

function asArray(v: unknown, what: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new OtlpDecodeError(`${what} must be an array`);
  return v;
}

/** True when an id field carries something (a non-empty string or byte array). */
function present(v: unknown): boolean {
  return (typeof v === 'string' && v !== '') || (v instanceof Uint8Array && v.length > 0);
}

/**
 * Reads one id: `undefined` when absent or all-zero (OTLP's "no id"), `false` when malformed.
 */
function readId(v: unknown, bytes: 16 | 8): string | undefined | false {
  if (!present(v)) return undefined;
  const id = normaliseId(v, bytes);
  if (id !== undefined) return id;
  const zero = typeof v === 'string' ? /^0+$/.test(v) && v.length === bytes * 2 : (v as Uint8Array).every((b) => b === 0);
  return zero ? undefined : false;
}

/** Decodes a parsed ExportLogsServiceRequest. Throws OtlpDecodeError on a malformed envelope. */
export function decodeLogsRequest(body: unknown): DecodedLogs {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new OtlpDecodeError('body must be an ExportLogsServiceRequest object');
  }
  const result: DecodedLogs = { logs: [], rejected: 0 };
  for (const rl of asArray(field(asObj(body), 'resourceLogs', 'resource_logs'), 'resourceLogs')) {
    for (const sl of asArray(field(asObj(rl), 'scopeLogs', 'scope_logs'), 'scopeLogs')) {
      for (const raw of asArray(field(asObj(sl), 'logRecords', 'log_records'), 'logRecords')) {
        const r = asObj(raw);
        const traceId = readId(field(r, 'traceId', 'trace_id'), 16);
        const spanId = readId(field(r, 'spanId', 'span_id'), 8);
        if (traceId === false || spanId === false) {
          result.rejected++;
          result.errorMessage ??= 'log record with a malformed traceId/spanId';
          continue;
        }
        const attributes = attributesOf(r);
        const time = nanosToMs(field(r, 'timeUnixNano', 'time_unix_nano'));
        const observed = nanosToMs(field(r, 'observedTimeUnixNano', 'observed_time_unix_nano'));
        const named = field(r, 'eventName', 'event_name');
        // Before `event_name` existed (OTLP 1.5), SDKs put the event name in the `event.name` attribute.
        const fallback = attributes['event.name'];
        const eventName = typeof named === 'string' && named !== '' ? named : typeof fallback === 'string' ? fallback : undefined;
        const body = r.body;
        const log: CapturedLog = {
          timeMs: time !== undefined && time > 0 ? time : (observed ?? 0),
          body: body === undefined || body === null ? undefined : anyValue(body),
          attributes,
        };
        if (traceId) log.traceId = traceId;
        if (spanId) log.spanId = spanId;
        if (eventName !== undefined) log.eventName = eventName;
        result.logs.push(log);
      }
    }
  }
  return result;
}

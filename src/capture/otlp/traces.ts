/**
 * ExportTraceServiceRequest (already parsed into plain objects, from JSON or protobuf) → spans.
 * Spans that lack ids are rejected individually (OTLP partial success), never the whole batch.
 * @module
 */
import { attributesOf, field, nanosToMs, toInt } from './any-value.ts';
import { OtlpDecodeError } from '../../errors.ts';
import type { CapturedEvent, CapturedSpan } from '../types.ts';

/** Result of decoding a trace export request. */
export interface DecodedTraces {
  spans: CapturedSpan[];
  /** Spans rejected (e.g. missing ids), reported as OTLP partial success. */
  rejected: number;
  /** First rejection reason, for `partialSuccess.errorMessage`. */
  errorMessage?: string;
}

const HEX = /^[0-9a-f]+$/;

/** 1 when `v` is lowercase hex (the usual encoding), 2 when it is all zeros too, else 0. */
function lowerHexKind(v: string): 0 | 1 | 2 {
  let zero = true;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c === 48) continue;
    if ((c > 48 && c <= 57) || (c >= 97 && c <= 102)) zero = false;
    else return 0;
  }
  return zero ? 2 : 1;
}

/** Normalises a trace/span id: lowercase hex of the right length (base64 accepted and converted). */
export function normaliseId(v: unknown, bytes: 16 | 8): string | undefined {
  if (typeof v === 'string' && v.length === bytes * 2) {
    const kind = lowerHexKind(v);
    if (kind !== 0) return kind === 1 ? v : undefined;
  }
  if (v instanceof Uint8Array) return v.length === bytes ? Buffer.from(v).toString('hex') : undefined;
  if (typeof v !== 'string' || v === '') return undefined;
  const lower = v.toLowerCase();
  if (lower.length === bytes * 2 && HEX.test(lower)) return /^0+$/.test(lower) ? undefined : lower;
  const buf = Buffer.from(v, 'base64');
  if (buf.length === bytes && buf.toString('base64').replace(/=+$/, '') === v.replace(/=+$/, '')) return buf.toString('hex');
  return undefined;
}

function asArray(v: unknown, what: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new OtlpDecodeError(`${what} must be an array`);
  return v;
}

function asObj(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

/** Decodes a parsed ExportTraceServiceRequest. Throws OtlpDecodeError on a malformed envelope. */
export function decodeTraceRequest(body: unknown): DecodedTraces {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new OtlpDecodeError('body must be an ExportTraceServiceRequest object');
  }
  const result: DecodedTraces = { spans: [], rejected: 0 };
  const reject = (why: string) => {
    result.rejected++;
    result.errorMessage ??= why;
  };
  for (const rs of asArray(field(asObj(body), 'resourceSpans', 'resource_spans'), 'resourceSpans')) {
    const rsObj = asObj(rs);
    const resource = attributesOf(rsObj.resource);
    for (const ss of asArray(field(rsObj, 'scopeSpans', 'scope_spans'), 'scopeSpans')) {
      const ssObj = asObj(ss);
      const scopeName = asObj(ssObj.scope).name;
      const scope = typeof scopeName === 'string' ? scopeName : '';
      for (const raw of asArray(ssObj.spans, 'spans')) {
        const s = asObj(raw);
        const traceId = normaliseId(field(s, 'traceId', 'trace_id'), 16);
        const spanId = normaliseId(field(s, 'spanId', 'span_id'), 8);
        if (!traceId || !spanId) {
          reject('span without a valid traceId/spanId');
          continue;
        }
        const startMs = nanosToMs(field(s, 'startTimeUnixNano', 'start_time_unix_nano')) ?? 0;
        const endMs = nanosToMs(field(s, 'endTimeUnixNano', 'end_time_unix_nano')) ?? startMs;
        const events: CapturedEvent[] = [];
        for (const e of asArray(s.events, 'events')) {
          const eo = asObj(e);
          events.push({
            name: typeof eo.name === 'string' ? eo.name : '',
            timeMs: nanosToMs(field(eo, 'timeUnixNano', 'time_unix_nano')) ?? startMs,
            attributes: attributesOf(eo),
          });
        }
        const parent = normaliseId(field(s, 'parentSpanId', 'parent_span_id'), 8);
        const otlpKind = toInt(s.kind) ?? 0;
        const span: CapturedSpan = {
          traceId,
          spanId,
          name: typeof s.name === 'string' ? s.name : '',
          // OTLP kinds are the API's + 1 (0 = unspecified).
          kind: Math.max(0, otlpKind - 1),
          startMs,
          endMs,
          attributes: attributesOf(s),
          events,
          droppedEventsCount: toInt(field(s, 'droppedEventsCount', 'dropped_events_count')) ?? 0,
          resource,
          scope,
        };
        if (parent) span.parentSpanId = parent;
        result.spans.push(span);
      }
    }
  }
  return result;
}

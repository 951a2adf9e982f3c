/**
 * Evaluation results as OTLP log records — the OpenTelemetry GenAI `gen_ai.evaluation.result` event:
 * event name `gen_ai.evaluation.result`, trace and span id of the evaluated generation span (so the
 * record is parented to it), attributes `gen_ai.evaluation.name`, `gen_ai.evaluation.score.value`
 * (always a double, 1.0 included: a backend that maps the field by its first value must not make it an
 * integer), `gen_ai.evaluation.score.label`, `gen_ai.evaluation.explanation`, `gen_ai.response.id`,
 * `error.type`, and the judge in attributes of its own (`ragwatch.judge.kind`, `ragwatch.judge.model`).
 * One request body, encoded as OTLP/protobuf (HTTP and gRPC) or OTLP/JSON (hex ids, 64-bit integers as
 * strings), with the project's OTLP descriptor.
 * @module
 */
import { decodeLogsResponse, encodeLogsRequest, type PartialSuccess } from '../capture/otlp/protobuf.ts';
import type { EvaluationResult } from './types.ts';

/** The event name (OTel GenAI semantic conventions, events). */
export const EVALUATION_EVENT = 'gen_ai.evaluation.result';
/** SeverityNumber INFO. */
const INFO = 9;
const HEX_TRACE = /^[0-9a-f]{32}$/;
const HEX_SPAN = /^[0-9a-f]{16}$/;

type AnyValue = { stringValue: string } | { doubleValue: number };
interface KeyValue {
  key: string;
  value: AnyValue;
}

/** What the records say about the exporter: `service.name` and the instrumentation scope's version. */
export interface RecordIdentity {
  serviceName: string;
  version: string;
}

const str = (key: string, value: string): KeyValue => ({ key, value: { stringValue: value } });

/** The record's attributes, in the order the conventions list them. */
export function evaluationAttributes(r: EvaluationResult): KeyValue[] {
  const out: KeyValue[] = [str('gen_ai.evaluation.name', r.name)];
  if (r.scoreValue !== undefined) out.push({ key: 'gen_ai.evaluation.score.value', value: { doubleValue: r.scoreValue } });
  if (r.scoreLabel !== undefined) out.push(str('gen_ai.evaluation.score.label', r.scoreLabel));
  if (r.explanation !== undefined && r.explanation !== '') out.push(str('gen_ai.evaluation.explanation', r.explanation));
  if (r.responseId !== undefined) out.push(str('gen_ai.response.id', r.responseId));
  if (r.errorType !== undefined) out.push(str('error.type', r.errorType));
  out.push(str('ragwatch.judge.kind', r.judge.kind));
  if (r.judge.model !== undefined) out.push(str('ragwatch.judge.model', r.judge.model));
  out.push(str('ragwatch.triplet.id', r.tripletId), str('ragwatch.service', r.service));
  if (r.release !== undefined) out.push(str('ragwatch.release', r.release));
  if (r.answerUrl !== undefined) out.push(str('ragwatch.answer.url', r.answerUrl));
  return out;
}

/** Nanoseconds since the epoch of a millisecond time, as the decimal string OTLP/JSON uses for 64-bit integers. */
function nanos(ms: number): string {
  return `${BigInt(Math.round(ms)) * 1_000_000n}`;
}

/** The ExportLogsServiceRequest of a batch; `hexIds` for OTLP/JSON (hex strings) instead of bytes. */
export function logsRequestOf(results: readonly EvaluationResult[], identity: RecordIdentity, hexIds: boolean, nowMs: number = Date.now()): Record<string, unknown> {
  const observed = nanos(nowMs);
  const logRecords = results.map((r) => {
    const record: Record<string, unknown> = { timeUnixNano: nanos(r.timeMs), observedTimeUnixNano: observed, severityNumber: INFO, severityText: 'INFO', eventName: EVALUATION_EVENT, attributes: evaluationAttributes(r) };
    // Parented to the evaluated span when both ids are well formed (else the response id names the answer).
    if (HEX_TRACE.test(r.traceId) && HEX_SPAN.test(r.spanId)) {
      record.traceId = hexIds ? r.traceId : Buffer.from(r.traceId, 'hex');
      record.spanId = hexIds ? r.spanId : Buffer.from(r.spanId, 'hex');
      record.flags = 1;
    }
    return record;
  });
  return {
    resourceLogs: [
      {
        resource: { attributes: [str('service.name', identity.serviceName), str('service.version', identity.version)] },
        scopeLogs: [{ scope: { name: 'ragwatch.evaluation', version: identity.version }, logRecords }],
      },
    ],
  };
}

/** The body of one export request in the protocol's encoding. */
export function encodeLogsBody(results: readonly EvaluationResult[], identity: RecordIdentity, json: boolean): Uint8Array | string {
  return json ? JSON.stringify(logsRequestOf(results, identity, true)) : encodeLogsRequest(logsRequestOf(results, identity, false));
}

/** The partial success of an export response (undefined: all accepted, or a body that says nothing). Never throws. */
export function partialSuccessOf(body: Uint8Array, json: boolean): PartialSuccess | undefined {
  if (body.byteLength === 0) return undefined;
  try {
    if (!json) return decodeLogsResponse(body);
    const p = (JSON.parse(Buffer.from(body).toString('utf8')) as { partialSuccess?: { rejectedLogRecords?: number | string; errorMessage?: string } }).partialSuccess;
    const rejected = Number(p?.rejectedLogRecords ?? 0);
    return p && (rejected > 0 || p.errorMessage) ? { rejected: Number.isFinite(rejected) ? rejected : 0, errorMessage: p.errorMessage ?? '' } : undefined;
  } catch {
    return undefined;
  }
}

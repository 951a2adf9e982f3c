/**
 * The wire form of `ragwatch.spans.v1`: compact, redacted span and log records batched per trace, keyed by trace id,
 * so that an assembling consumer group can build triplets from spans that reached different
 * collectors. Only what assembly and the convention mappers read travels: the span's ids, name,
 * kind, times, attributes and events (minus infrastructure namespaces such as `http.request.header.*`,
 * `process.*`, `host.*`), links, and the resource's service identity; every string is cut to
 * `capture.maxTextChars` and redacted. Never the raw OTLP body.
 * @module
 */
import { Ajv } from 'ajv';
import { z } from 'zod';
import type { AttrValue, Attributes, CapturedLog, CapturedSpan } from '../capture/types.ts';

/** Schema version of the records (`schema-version` header). */
export const SPAN_RECORD_VERSION = '2';

/** Attribute namespaces no mapper, sampler or assembler reads: dropped before producing. */
const DROPPED_PREFIXES = ['http.request.header.', 'http.response.header.', 'process.', 'host.', 'os.', 'k8s.', 'container.', 'cloud.', 'net.', 'network.', 'telemetry.', 'thread.', 'code.', 'exception.stacktrace', 'user_agent.', 'client.', 'server.', 'url.full', 'url.query'];
/** Resource attributes always kept (service identity: the `service` label); those sampling reads are added by the forwarder. */
const RESOURCE_KEYS = ['service.name', 'service.version', 'service.namespace', 'deployment.environment', 'deployment.environment.name'];

const attrValue: z.ZodType<AttrValue> = z.lazy(() => z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(attrValue), z.record(z.string(), attrValue)]));
const attributes = z.record(z.string(), attrValue);
const hex = (n: number) => z.string().regex(new RegExp(`^[0-9a-f]{${n}}$`));

/** One span of a trace batch (its trace id is the batch's). */
export const spanRecordSchema = z.object({
  spanId: hex(16),
  parentSpanId: hex(16).optional(),
  name: z.string(),
  kind: z.number().int().min(0).max(5),
  startMs: z.number(),
  endMs: z.number(),
  attributes,
  events: z.array(z.object({ name: z.string(), timeMs: z.number(), attributes })),
  droppedEventsCount: z.number().int().min(0),
  resource: attributes,
  scope: z.string(),
  links: z.array(z.object({ traceId: hex(32), spanId: hex(16) })).optional(),
});
/** One GenAI content log record of a trace batch (joined to its span by ids). */
export const logRecordSchema = z.object({
  spanId: hex(16).optional(),
  eventName: z.string().optional(),
  timeMs: z.number(),
  body: attrValue.optional(),
  attributes,
});
/**
 * A message of `ragwatch.spans.v1`: the spans (and log records) of one trace from one OTLP request
 * or processor batch — an SDK usually exports a trace's spans together, so one message per trace
 * and request, not per span.
 */
export const traceBatchSchema = z.object({ traceId: hex(32), spans: z.array(spanRecordSchema), logs: z.array(logRecordSchema) });
export type SpanRecord = z.infer<typeof spanRecordSchema>;
export type LogRecord = z.infer<typeof logRecordSchema>;
export type TraceBatch = z.infer<typeof traceBatchSchema>;

/**
 * The zod schema compiled by ajv (its JSON schema as zod reads input: unknown keys allowed), so the
 * assembler validates each record in place instead of zod building a copy: 3.2 instead of 9.2 µs per
 * bench record (1.9 KB, on top of JSON.parse's 6.2 µs). Attribute maps compile to "an object" and an
 * attribute value to "anything": every value `JSON.parse` can produce is an {@link AttrValue}, so
 * those parts cannot fail on parsed input, while ajv's recursive reference built an error path string
 * and an options object per attribute (14 % of the assembler's allocations; parse + validate 6.0 → 3.0 µs
 * per bench record without it).
 * tests/assembly/span-record.test.ts checks both accept exactly the same records.
 */
const validateTraceBatch = new Ajv({ allErrors: false }).compile<TraceBatch>(
  z.toJSONSchema(traceBatchSchema, {
    target: 'draft-7',
    io: 'input',
    override: ({ zodSchema, jsonSchema }) => {
      const schema: unknown = zodSchema;
      if (schema !== attributes && schema !== attrValue) return;
      for (const key of Object.keys(jsonSchema)) delete (jsonSchema as Record<string, unknown>)[key];
      if (schema === attributes) jsonSchema.type = 'object';
    },
  }),
);

/** Rewrites every string of a value (redaction, clipping); structure and other types are kept. */
export type StringMap = (s: string) => string;

function mapValue(v: AttrValue | undefined, f: StringMap): AttrValue | undefined {
  if (typeof v === 'string') return f(v);
  if (Array.isArray(v)) return v.map((x) => mapValue(x, f) ?? null);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, AttrValue> = {};
    for (const [k, x] of Object.entries(v)) out[k] = mapValue(x, f) ?? null;
    return out;
  }
  return v;
}

function compactAttributes(attrs: Attributes, f: StringMap): Record<string, AttrValue> {
  const out: Record<string, AttrValue> = {};
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || DROPPED_PREFIXES.some((p) => k.startsWith(p))) continue;
    out[k] = mapValue(v, f)!;
  }
  return out;
}

/**
 * The record of a captured span; `f` redacts and clips every string. `resourceKeys`: resource
 * attributes kept beside the service identity (those sampling reads), their strings through `f`.
 */
export function toSpanRecord(span: CapturedSpan, f: StringMap, resourceKeys: readonly string[] = []): SpanRecord {
  const resource: Record<string, AttrValue> = {};
  for (const k of RESOURCE_KEYS) {
    const v = span.resource[k];
    if (v !== undefined) resource[k] = v;
  }
  for (const k of resourceKeys) {
    const v = Object.hasOwn(span.resource, k) ? span.resource[k] : undefined;
    if (v !== undefined && !(k in resource)) resource[k] = mapValue(v, f)!;
  }
  const record: SpanRecord = {
    spanId: span.spanId,
    name: span.name,
    kind: span.kind,
    startMs: span.startMs,
    endMs: span.endMs,
    attributes: compactAttributes(span.attributes, f),
    events: span.events.map((e) => ({ name: e.name, timeMs: e.timeMs, attributes: compactAttributes(e.attributes, f) })),
    droppedEventsCount: span.droppedEventsCount,
    resource,
    scope: span.scope,
  };
  if (span.parentSpanId) record.parentSpanId = span.parentSpanId;
  if (span.links && span.links.length > 0) record.links = span.links;
  return record;
}

/** The record of a log record (of a batch whose trace id it carries). */
export function toLogRecord(log: CapturedLog, f: StringMap): LogRecord {
  const record: LogRecord = { timeMs: log.timeMs, attributes: compactAttributes(log.attributes, f) };
  if (log.spanId) record.spanId = log.spanId;
  if (log.eventName !== undefined) record.eventName = log.eventName;
  const body = mapValue(log.body, f);
  if (body !== undefined) record.body = body;
  return record;
}

/** A decoded record back in capture's span model. */
export function fromSpanRecord(traceId: string, r: SpanRecord): CapturedSpan {
  const span: CapturedSpan = {
    traceId,
    spanId: r.spanId,
    name: r.name,
    kind: r.kind,
    startMs: r.startMs,
    endMs: r.endMs,
    attributes: r.attributes,
    events: r.events,
    droppedEventsCount: r.droppedEventsCount,
    resource: r.resource,
    scope: r.scope,
  };
  if (r.parentSpanId) span.parentSpanId = r.parentSpanId;
  if (r.links) span.links = r.links;
  return span;
}

/** A decoded log record back in capture's model. */
export function fromLogRecord(traceId: string, r: LogRecord): CapturedLog {
  const log: CapturedLog = { traceId, timeMs: r.timeMs, body: r.body, attributes: r.attributes };
  if (r.spanId) log.spanId = r.spanId;
  if (r.eventName !== undefined) log.eventName = r.eventName;
  return log;
}

/** Parses one message value; a string error (for the DLQ `error` header) when it is not a valid trace batch. */
export function parseTraceBatch(value: Buffer | string): TraceBatch | string {
  let json: unknown;
  try {
    json = JSON.parse(typeof value === 'string' ? value : value.toString('utf8'));
  } catch (err) {
    return `invalid JSON: ${(err as Error).message}`;
  }
  if (validateTraceBatch(json)) return json;
  const e = validateTraceBatch.errors?.[0];
  const missing = e?.keyword === 'required' ? (e.params as { missingProperty: string }).missingProperty : undefined;
  const path = [...(e?.instancePath.split('/').slice(1) ?? []), ...(missing ? [missing] : [])].join('.');
  return `invalid span record: ${path}: ${e?.message ?? 'invalid'}`;
}

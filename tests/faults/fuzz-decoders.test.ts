/**
 * Fault case 5 (DESIGN §11 promise 6): property-based fuzzing of the OTLP decoders (JSON and
 * protobuf, traces and logs), every convention mapper and the capture stage behind them.
 * A decoder may only return a result or throw OtlpDecodeError (→ 4xx); anything else is a crash.
 * Mappers and triplet building must never throw. Figures: inputs, crashes, unhandled rejections.
 */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import protobuf from 'protobufjs/light.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTriplets } from '../../src/capture/build-triplets.ts';
import { Capture } from '../../src/capture/capture.ts';
import { DEFAULT_MAPPERS } from '../../src/capture/mappers/index.ts';
import { decodeLogs, decodeTraces, type OtlpMediaType } from '../../src/capture/otlp/decode.ts';
import { OTLP_DESCRIPTOR } from '../../src/capture/otlp/proto/schema.ts';
import type { AttrValue, CapturedSpan, ConventionMapper } from '../../src/capture/types.ts';
import { defaultConfig } from '../../src/config/load.ts';
import { OtlpDecodeError } from '../../src/errors.ts';
import { createInstruments } from '../../src/telemetry/instruments.ts';
import { CLOCK_TOWER, openInferenceTrace } from '../helpers/otlp.ts';
import { reportFigure } from './figures.ts';

const root = protobuf.Root.fromJSON(OTLP_DESCRIPTOR);
const TRACE_REQUEST = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');

/** Attribute keys the convention mappers read, so generated spans reach deep into them. */
const KNOWN_KEYS = [
  'openinference.span.kind', 'input.value', 'output.value', 'llm.model_name', 'llm.token_count.prompt', 'llm.token_count.completion',
  'llm.input_messages.0.message.role', 'llm.input_messages.0.message.content', 'llm.input_messages.1.message.content',
  'llm.output_messages.0.message.content', 'retrieval.documents.0.document.content', 'retrieval.documents.0.document.id',
  'retrieval.documents.0.document.score', 'retrieval.documents.1.document.content', 'retrieval.documents.0.document.metadata',
  'gen_ai.operation.name', 'gen_ai.system', 'gen_ai.request.model', 'gen_ai.input.messages', 'gen_ai.output.messages',
  'gen_ai.retrieval.documents', 'gen_ai.prompt.0.content', 'gen_ai.completion.0.content', 'gen_ai.usage.output_tokens',
  'traceloop.span.kind', 'traceloop.entity.input', 'traceloop.entity.output', 'ai.prompt', 'ai.prompt.messages', 'ai.response.text',
  'ai.response.msToFirstChunk', 'ai.operationId', 'rag.sources', 'rag.route', 'http.route', 'service.name', 'langfuse.observation.type',
];
const KIND_VALUES = ['LLM', 'RETRIEVER', 'CHAIN', 'RERANKER', 'EMBEDDING', 'chat', 'retrieval', 'workflow', 'ai.generateText', ''];
const TRACE_IDS = ['0af7651916cd43dd8448eb211c80319c', '4bf92f3577b34da6a3ce929d0e0e4736', 'AAECAwQFBgcICQoLDA0ODw=='];
const SPAN_IDS = ['b7ad6b7169203331', '00f067aa0ba902b7', '53995c3f42cd8ad8', 'AQIDBAUGBwg='];

const text = fc.oneof(fc.string(), fc.constantFrom(...KIND_VALUES), fc.json(), fc.constant(JSON.stringify([{ content: 'doc' }])), fc.string({ unit: 'binary' }));
const otlpNumber = fc.oneof(fc.integer(), fc.bigInt({ min: -(2n ** 64n), max: 2n ** 65n }).map(String), fc.double(), fc.string({ maxLength: 8 }));

const { value: anyValue } = fc.letrec<{ value: unknown; kv: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.record({ stringValue: text }),
    fc.record({ intValue: otlpNumber }),
    fc.record({ doubleValue: fc.oneof(fc.double(), fc.string({ maxLength: 6 })) }),
    fc.record({ boolValue: fc.oneof(fc.boolean(), fc.anything()) }),
    fc.record({ arrayValue: fc.record({ values: fc.array(tie('value'), { maxLength: 4 }) }) }),
    fc.record({ kvlistValue: fc.record({ values: fc.array(tie('kv'), { maxLength: 4 }) }) }),
    fc.record({ bytesValue: fc.base64String({ maxLength: 16 }) }),
    fc.anything({ maxDepth: 3 }),
  ),
  kv: fc.record({ key: fc.oneof(fc.constantFrom(...KNOWN_KEYS), fc.string({ maxLength: 12 })), value: tie('value') }),
}));
const kv = fc.record({ key: fc.oneof(fc.constantFrom(...KNOWN_KEYS), fc.string({ maxLength: 12 })), value: anyValue });
const kinds = fc.record({ key: fc.constantFrom('openinference.span.kind', 'gen_ai.operation.name', 'traceloop.span.kind'), value: fc.record({ stringValue: fc.constantFrom(...KIND_VALUES) }) });
const attributes = fc.tuple(fc.array(kinds, { maxLength: 1 }), fc.array(kv, { maxLength: 10 })).map(([a, b]) => [...a, ...b]);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 4, arbitrary: arb }, { weight: 1, arbitrary: fc.anything({ maxDepth: 2 }) });

const span = fc.record(
  {
    traceId: maybe(fc.constantFrom(...TRACE_IDS)),
    spanId: maybe(fc.constantFrom(...SPAN_IDS)),
    parentSpanId: maybe(fc.constantFrom(...SPAN_IDS, '')),
    name: maybe(fc.string({ maxLength: 16 })),
    kind: maybe(fc.integer({ min: -1, max: 6 })),
    startTimeUnixNano: maybe(otlpNumber),
    endTimeUnixNano: maybe(otlpNumber),
    attributes: maybe(attributes),
    events: maybe(fc.array(fc.record({ name: fc.string({ maxLength: 24 }), timeUnixNano: otlpNumber, attributes }, { requiredKeys: [] }), { maxLength: 3 })),
    droppedEventsCount: maybe(fc.nat()),
  },
  { requiredKeys: [] },
);
const traceRequest = fc.record({
  resourceSpans: maybe(
    fc.array(
      fc.record(
        {
          resource: maybe(fc.record({ attributes: maybe(attributes) })),
          scopeSpans: maybe(fc.array(fc.record({ scope: maybe(fc.record({ name: fc.string() })), spans: maybe(fc.array(span, { maxLength: 5 })) }, { requiredKeys: [] }), { maxLength: 2 })),
        },
        { requiredKeys: [] },
      ),
      { maxLength: 2 },
    ),
  ),
});
const logRecord = fc.record(
  { traceId: maybe(fc.constantFrom(...TRACE_IDS)), spanId: maybe(fc.constantFrom(...SPAN_IDS)), eventName: maybe(fc.string()), timeUnixNano: maybe(otlpNumber), body: maybe(anyValue), attributes: maybe(attributes) },
  { requiredKeys: [] },
);
const logsRequest = fc.record({ resourceLogs: maybe(fc.array(fc.record({ scopeLogs: maybe(fc.array(fc.record({ logRecords: maybe(fc.array(logRecord, { maxLength: 4 })) }), { maxLength: 2 })) }), { maxLength: 2 })) });

/** Byte-level mutations of a valid body: flips, truncation, insertion, duplication. */
const mutation = fc.oneof(
  fc.record({ op: fc.constant('flip' as const), at: fc.nat(), bits: fc.integer({ min: 1, max: 255 }) }),
  fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('insert' as const), at: fc.nat(), bytes: fc.uint8Array({ maxLength: 8 }) }),
  fc.record({ op: fc.constant('repeat' as const), at: fc.nat(), len: fc.integer({ min: 1, max: 64 }) }),
);
type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;
function mutate(body: Uint8Array, ms: readonly Mutation[]): Buffer {
  let b = Buffer.from(body);
  for (const m of ms) {
    if (b.length === 0) break;
    const at = m.at % b.length;
    if (m.op === 'flip') b[at] = b[at]! ^ m.bits;
    else if (m.op === 'truncate') b = b.subarray(0, at);
    else if (m.op === 'insert') b = Buffer.concat([b.subarray(0, at), m.bytes, b.subarray(at)]);
    else b = Buffer.concat([b.subarray(0, at + m.len), b.subarray(at, at + m.len), b.subarray(at + m.len)]);
  }
  return b;
}

const stats = { inputs: 0, decoderCalls: 0, crashes: 0, rejected4xx: 0, spansDecoded: 0, mapperCalls: 0, maxDecodeMs: 0 };
const crashes: string[] = [];
let unhandled = 0;
const onUnhandled = () => void unhandled++;
const instruments = createInstruments({ processMetrics: false });
let triplets = 0;
const capture = new Capture({ config: { ...defaultConfig().capture, traceIdleMs: 50 }, instruments, onTriplet: () => void triplets++ });

/** Runs a decoder: a result or an OtlpDecodeError is fine; anything else is a crash. */
function decode(kind: 'traces' | 'logs', body: Buffer, media: OtlpMediaType): void {
  stats.decoderCalls++;
  const t0 = performance.now();
  try {
    if (kind === 'traces') {
      const decoded = decodeTraces(body, media);
      stats.spansDecoded += decoded.spans.length;
      capture.addSpans(decoded.spans, 'otlp');
    } else capture.addLogs(decodeLogs(body, media).logs, 'otlp');
  } catch (err) {
    if (err instanceof OtlpDecodeError && err.status >= 400 && err.status < 500) stats.rejected4xx++;
    else {
      stats.crashes++;
      if (crashes.length < 5) crashes.push(`${kind}/${media}: ${String(err)}`);
    }
  } finally {
    stats.maxDecodeMs = Math.max(stats.maxDecodeMs, performance.now() - t0);
  }
}

async function loadMappers(): Promise<ConventionMapper[]> {
  const dir = fileURLToPath(new URL('../../src/capture/mappers/', import.meta.url));
  const found = new Map<string, ConventionMapper>(DEFAULT_MAPPERS.map((m) => [m.name, m]));
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    const mod = (await import(`${dir}${file}`)) as Record<string, unknown>;
    for (const v of Object.values(mod)) {
      const m = v as Partial<ConventionMapper>;
      if (m && typeof m === 'object' && typeof m.role === 'function' && typeof m.generation === 'function' && typeof m.retrieval === 'function') found.set(String(m.name), m as ConventionMapper);
    }
  }
  return [...found.values()];
}

beforeAll(() => {
  process.on('unhandledRejection', onUnhandled);
  process.on('uncaughtException', onUnhandled);
});
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  process.off('uncaughtException', onUnhandled);
  await capture.shutdown();
});

describe('fault 5: fuzzing decoders, mappers and capture', () => {
  it('OTLP/JSON traces: generated and mutated requests', () => {
    fc.assert(fc.property(traceRequest, (req) => {
      stats.inputs++;
      decode('traces', Buffer.from(JSON.stringify(req)), 'application/json');
    }), { numRuns: 3000 });
    const valid = Buffer.from(JSON.stringify(openInferenceTrace(CLOCK_TOWER).body));
    fc.assert(fc.property(fc.array(mutation, { minLength: 1, maxLength: 4 }), (ms) => {
      stats.inputs++;
      decode('traces', mutate(valid, ms), 'application/json');
    }), { numRuns: 1500 });
  });

  it('OTLP protobuf traces: encoded generated requests, mutated', () => {
    fc.assert(fc.property(traceRequest, fc.array(mutation, { maxLength: 3 }), (req, ms) => {
      let encoded: Uint8Array;
      try {
        encoded = TRACE_REQUEST.encode(TRACE_REQUEST.fromObject(req as Record<string, unknown>)).finish();
      } catch {
        encoded = Buffer.from(JSON.stringify(req));
      }
      stats.inputs++;
      decode('traces', mutate(encoded, ms), 'application/x-protobuf');
    }), { numRuns: 2500 });
  });

  it('OTLP logs, JSON and protobuf, and random bytes for every decoder', () => {
    fc.assert(fc.property(logsRequest, (req) => {
      stats.inputs++;
      decode('logs', Buffer.from(JSON.stringify(req)), 'application/json');
    }), { numRuns: 1000 });
    fc.assert(fc.property(fc.uint8Array({ maxLength: 2048 }), (bytes) => {
      stats.inputs++;
      const b = Buffer.from(bytes);
      decode('traces', b, 'application/json');
      decode('traces', b, 'application/x-protobuf');
      decode('logs', b, 'application/json');
      decode('logs', b, 'application/x-protobuf');
    }), { numRuns: 1500 });
  });

  it('every convention mapper and triplet building, on arbitrary span attributes', async () => {
    const mappers = await loadMappers();
    const attrValue: fc.Arbitrary<AttrValue> = fc.oneof(text, fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<AttrValue>);
    const attrs = fc.dictionary(fc.oneof(fc.constantFrom(...KNOWN_KEYS), fc.string({ maxLength: 10 })), attrValue, { maxKeys: 12 });
    const capturedSpan: fc.Arbitrary<CapturedSpan> = fc.record({
      traceId: fc.constant(TRACE_IDS[0]!),
      spanId: fc.constantFrom(...SPAN_IDS),
      parentSpanId: fc.option(fc.constantFrom(...SPAN_IDS), { nil: undefined }),
      name: fc.string({ maxLength: 12 }),
      kind: fc.integer({ min: 0, max: 4 }),
      startMs: fc.double({ noNaN: false }),
      endMs: fc.double({ noNaN: false }),
      attributes: fc.tuple(fc.constantFrom(...KIND_VALUES), attrs).map(([k, a]) => ({ 'openinference.span.kind': k, 'gen_ai.operation.name': k, ...a })),
      events: fc.array(fc.record({ name: fc.string(), timeMs: fc.double(), attributes: attrs }), { maxLength: 2 }),
      droppedEventsCount: fc.nat(),
      resource: attrs,
      scope: fc.string({ maxLength: 8 }),
    }, { requiredKeys: ['traceId', 'spanId', 'name', 'kind', 'startMs', 'endMs', 'attributes', 'events', 'droppedEventsCount', 'resource', 'scope'] });
    fc.assert(fc.property(fc.array(capturedSpan, { minLength: 1, maxLength: 5 }), (spans) => {
      stats.inputs++;
      for (const m of mappers) {
        for (const s of spans) {
          stats.mapperCalls++;
          m.role(s);
          m.generation(s, []);
          m.retrieval(s, []);
        }
      }
      buildTriplets(spans, { mappers, defaultService: 'svc', maxTextChars: 1000 });
    }), { numRuns: 2500 });
    expect(mappers.length).toBeGreaterThanOrEqual(1);
  });

  it('reports: ≥ 10,000 inputs, 0 crashes, 0 unhandled rejections, capture never dropped on a mapper or redaction error', async () => {
    await capture.forceFlush();
    await new Promise((r) => setTimeout(r, 50));
    const dropped = await instruments.dropped.get();
    const internalDropsByReason = Object.fromEntries(dropped.values.map((v) => [String(v.labels.reason), v.value]));
    const internalDrops = dropped.values.filter((v) => v.labels.reason === 'mapper_error' || v.labels.reason === 'redaction_error').reduce((a, v) => a + v.value, 0);
    reportFigure({ fault: 'fuzz', figure: 'generated_inputs', value: stats.inputs, decoderCalls: stats.decoderCalls, mapperCalls: stats.mapperCalls, spansDecoded: stats.spansDecoded, triplets });
    reportFigure({ fault: 'fuzz', figure: 'crashes', value: stats.crashes, rejected4xx: stats.rejected4xx, examples: crashes });
    reportFigure({ fault: 'fuzz', figure: 'unhandled_rejections', value: unhandled });
    reportFigure({ fault: 'fuzz', figure: 'capture_internal_drops', value: internalDrops, captureDropsByReason: internalDropsByReason });
    reportFigure({ fault: 'fuzz', figure: 'max_decode_ms', value: Math.round(stats.maxDecodeMs * 10) / 10 });
    expect(stats.inputs).toBeGreaterThanOrEqual(10_000);
    expect(crashes).toEqual([]);
    expect(stats.crashes).toBe(0);
    expect(unhandled).toBe(0);
    expect(internalDrops).toBe(0);
  });
});

import protobuf from 'protobufjs/light.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_VALUE_DEPTH } from '../../../src/capture/otlp/any-value.ts';
import { decodeLogs, decodeTraces, otlpMediaType } from '../../../src/capture/otlp/decode.ts';
import { MAX_JSON_DEPTH } from '../../../src/capture/otlp/json.ts';
import { OtlpDecodeError } from '../../../src/errors.ts';
import { deepAnyValue, deepJsonAnyValue } from './hostile.ts';
import { sdkFixture, type SdkFixture } from './sdk-fixtures.ts';

const JSON_TYPE = 'application/json';
const PB = 'application/x-protobuf';

function json(body: unknown): Buffer {
  return Buffer.from(JSON.stringify(body));
}

function traceWith(spans: unknown[]): unknown {
  return { resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] }, scopeSpans: [{ scope: { name: 'sc' }, spans }] }] };
}

const TRACE_ID = '5b8efff798038103d269b633813fc60c';
const SPAN_ID = 'eee19b7ec3c1b174';

function expectDecodeError(fn: () => unknown, status: number, message: RegExp): void {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(OtlpDecodeError);
    expect((err as OtlpDecodeError).status).toBe(status);
    expect((err as OtlpDecodeError).message).toMatch(message);
    return;
  }
  throw new Error('expected an OtlpDecodeError');
}

describe('OTLP decoding of real SDK exports', () => {
  let fx: SdkFixture;
  beforeAll(async () => {
    fx = await sdkFixture();
  });

  it('decodes the same spans from OTLP/JSON and protobuf', () => {
    const fromJson = decodeTraces(fx.traceJson, JSON_TYPE);
    const fromPb = decodeTraces(fx.traceProtobuf, PB);
    expect(fromJson.rejected).toBe(0);
    expect(fromPb).toEqual(fromJson);
    expect(fromPb.spans).toHaveLength(3);
  });

  it('keeps ids, parents, kinds, times, attributes and events of every SDK span', () => {
    const { spans } = decodeTraces(fx.traceProtobuf, PB);
    for (const sdk of fx.spans) {
      const got = spans.find((s) => s.spanId === sdk.spanContext().spanId);
      expect(got, sdk.name).toBeDefined();
      expect(got!.traceId).toBe(sdk.spanContext().traceId);
      expect(got!.parentSpanId).toBe(sdk.parentSpanContext?.spanId);
      expect(got!.name).toBe(sdk.name);
      expect(got!.kind).toBe(sdk.kind);
      expect(got!.startMs).toBeCloseTo(sdk.startTime[0] * 1000 + sdk.startTime[1] / 1e6, 2);
      expect(got!.endMs).toBeCloseTo(sdk.endTime[0] * 1000 + sdk.endTime[1] / 1e6, 2);
      expect(got!.attributes).toEqual(sdk.attributes);
      expect(got!.events.map((e) => [e.name, e.attributes])).toEqual(sdk.events.map((e) => [e.name, e.attributes ?? {}]));
      expect(got!.scope).toBe('ragwatch-test');
      expect(got!.resource['telemetry.sdk.name']).toBe('opentelemetry');
    }
  });

  it('keeps a JSON-string attribute value as the string it is', () => {
    const llm = decodeTraces(fx.traceProtobuf, PB).spans.find((s) => s.name === 'ChatCompletion')!;
    expect(JSON.parse(llm.attributes['gen_ai.input.messages'] as string)).toEqual([{ role: 'user', parts: [{ type: 'text', content: 'Capital of France?' }] }]);
  });

  it('decodes the same log records from OTLP/JSON and protobuf, with ids, event name, structured body and attributes', () => {
    const fromJson = decodeLogs(fx.logsJson, JSON_TYPE);
    const fromPb = decodeLogs(fx.logsProtobuf, PB);
    expect(fromPb).toEqual(fromJson);
    const llm = fx.spans.find((s) => s.name === 'ChatCompletion')!;
    const [choice, plain] = fromPb.logs;
    expect(choice).toMatchObject({
      traceId: llm.spanContext().traceId,
      spanId: llm.spanContext().spanId,
      eventName: 'gen_ai.choice',
      body: { index: 0, message: { role: 'assistant', content: 'Paris.', parts: [{ type: 'text', n: 1 }] } },
      attributes: { 'gen_ai.system': 'openai', 'event.domain': 'gen_ai' },
    });
    expect(choice!.timeMs).toBeGreaterThan(0);
    expect(plain).toEqual({ timeMs: expect.any(Number), body: 'plain log line without a span', attributes: { 'log.count': 7 } });
  });
});

describe('OTLP/JSON details', () => {
  it('accepts int64 as number or string and snake_case keys', () => {
    const span = (ints: 'string' | 'number') => ({
      trace_id: TRACE_ID,
      span_id: SPAN_ID,
      name: 's',
      kind: 3,
      // 1700000000123456768 is exactly representable as a double, so both forms name the same instant.
      start_time_unix_nano: ints === 'string' ? '1700000000123456768' : 1700000000123456768,
      end_time_unix_nano: ints === 'string' ? '1700000001000000000' : 1700000001000000000,
      attributes: [{ key: 'n', value: { int_value: ints === 'string' ? '42' : 42 } }, { key: 'd', value: { double_value: 1.5 } }],
    });
    const a = decodeTraces(json(traceWith([span('string')])), JSON_TYPE).spans[0]!;
    const b = decodeTraces(json(traceWith([span('number')])), JSON_TYPE).spans[0]!;
    expect(a.attributes).toEqual({ n: 42, d: 1.5 });
    expect(b.attributes).toEqual(a.attributes);
    expect(a.startMs).toBe(1700000000123.456);
    expect(b.startMs).toBe(a.startMs);
    expect(a.kind).toBe(2);
  });

  it('treats a timestamp no Date can hold as missing: start 0, end = start', () => {
    const at = (startTimeUnixNano: unknown, endTimeUnixNano: unknown) => decodeTraces(json(traceWith([{ traceId: TRACE_ID, spanId: SPAN_ID, startTimeUnixNano, endTimeUnixNano }])), JSON_TYPE).spans[0]!;
    expect(at('1700000000000000000', 1e300)).toMatchObject({ startMs: 1_700_000_000_000, endMs: 1_700_000_000_000 });
    expect(at('9'.repeat(30), '1700000000000000000')).toMatchObject({ startMs: 0, endMs: 1_700_000_000_000 });
    expect(at(-1e300, '8640000000000000000000')).toMatchObject({ startMs: 0, endMs: 8.64e15 });
  });

  it('decodes structured (kvlist/array/bytes) attribute values and keeps "__proto__" as data', () => {
    const value = { kvlistValue: { values: [{ key: 'role', value: { stringValue: 'user' } }, { key: '__proto__', value: { arrayValue: { values: [{ boolValue: true }, { bytesValue: 'AQI=' }] } } }] } };
    const s = decodeTraces(json(traceWith([{ traceId: TRACE_ID, spanId: SPAN_ID, attributes: [{ key: 'msg', value }] }])), JSON_TYPE).spans[0]!;
    const msg = s.attributes.msg as Record<string, unknown>;
    expect(msg.role).toBe('user');
    expect(Object.getPrototypeOf(msg)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(msg, '__proto__')?.value).toEqual([true, 'AQI=']);
  });

  it('rejects spans without valid ids individually (partial success)', () => {
    const out = decodeTraces(json(traceWith([{ traceId: TRACE_ID, spanId: SPAN_ID, name: 'ok' }, { traceId: 'xyz', spanId: SPAN_ID }, { spanId: SPAN_ID }])), JSON_TYPE);
    expect(out.spans.map((s) => s.name)).toEqual(['ok']);
    expect(out.rejected).toBe(2);
    expect(out.errorMessage).toMatch(/traceId/);
  });

  it('rejects log records with malformed ids individually, keeps records without ids', () => {
    const body = { resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'a' } }, { traceId: 'nothex', body: { stringValue: 'b' } }, { traceId: '0'.repeat(32), attributes: [{ key: 'event.name', value: { stringValue: 'legacy.event' } }] }] }] }] };
    const out = decodeLogs(json(body), JSON_TYPE);
    expect(out.rejected).toBe(1);
    expect(out.logs).toHaveLength(2);
    expect(out.logs[0]!.body).toBe('a');
    expect(out.logs[1]).toMatchObject({ eventName: 'legacy.event' });
    expect(out.logs[1]!.traceId).toBeUndefined();
  });

  it('rejects a malformed envelope, invalid JSON and invalid UTF-8 with 400 and a reason', () => {
    expectDecodeError(() => decodeTraces(json([1, 2]), JSON_TYPE), 400, /ExportTraceServiceRequest/);
    expectDecodeError(() => decodeTraces(json({ resourceSpans: {} }), JSON_TYPE), 400, /resourceSpans must be an array/);
    expectDecodeError(() => decodeTraces(Buffer.from('{"resourceSpans":['), JSON_TYPE), 400, /not valid JSON/);
    const badUtf8 = Buffer.concat([Buffer.from('{"resourceSpans":[],"x":"'), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}')]);
    expectDecodeError(() => decodeTraces(badUtf8, JSON_TYPE), 400, /UTF-8/);
  });

  it('rejects 10k-deep JSON (attribute values and raw arrays) with 400, quickly', () => {
    const deep = deepJsonAnyValue(10_000);
    const body = `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"${TRACE_ID}","spanId":"${SPAN_ID}","attributes":[{"key":"deep","value":${deep}}]}]}]}]}`;
    const started = performance.now();
    expectDecodeError(() => decodeTraces(Buffer.from(body), JSON_TYPE), 400, new RegExp(`deeper than ${MAX_JSON_DEPTH}`));
    expectDecodeError(() => decodeLogs(Buffer.from('['.repeat(1_000_000) + ']'.repeat(1_000_000)), JSON_TYPE), 400, /deeper/);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('enforces the attribute depth limit below the JSON pre-check', () => {
    const nest = (levels: number): unknown => (levels === 0 ? { stringValue: 'x' } : { arrayValue: { values: [nest(levels - 1)] } });
    const at = (levels: number) => json(traceWith([{ traceId: TRACE_ID, spanId: SPAN_ID, attributes: [{ key: 'deep', value: nest(levels) }] }]));
    const ok = decodeTraces(at(MAX_VALUE_DEPTH), JSON_TYPE).spans[0]!.attributes.deep;
    expect(JSON.stringify(ok)).toBe('['.repeat(MAX_VALUE_DEPTH) + '"x"' + ']'.repeat(MAX_VALUE_DEPTH));
    expectDecodeError(() => decodeTraces(at(MAX_VALUE_DEPTH + 1), JSON_TYPE), 400, new RegExp(`deeper than ${MAX_VALUE_DEPTH} levels`));
  });
});

describe('OTLP protobuf hostile input', () => {
  function traceRequestWithAttribute(anyValue: Uint8Array): Buffer {
    const w = (build: (w: protobuf.Writer) => protobuf.Writer) => build(protobuf.Writer.create()).finish();
    const kv = w((x) => x.uint32((1 << 3) | 2).string('deep').uint32((2 << 3) | 2).bytes(anyValue));
    const span = w((x) => x.uint32((1 << 3) | 2).bytes(Buffer.from(TRACE_ID, 'hex')).uint32((2 << 3) | 2).bytes(Buffer.from(SPAN_ID, 'hex')).uint32((9 << 3) | 2).bytes(kv));
    const scopeSpans = w((x) => x.uint32((2 << 3) | 2).bytes(span));
    const resourceSpans = w((x) => x.uint32((2 << 3) | 2).bytes(scopeSpans));
    return Buffer.from(w((x) => x.uint32((1 << 3) | 2).bytes(resourceSpans)));
  }

  it('decodes a hand-built request whose nesting is within the limit', () => {
    const s = decodeTraces(traceRequestWithAttribute(deepAnyValue(3)), PB).spans[0]!;
    expect(s.traceId).toBe(TRACE_ID);
    expect(s.attributes.deep).toEqual([[['x']]]);
  });

  it('rejects attribute nesting past the limit and 10k-deep nesting with 400', () => {
    expectDecodeError(() => decodeTraces(traceRequestWithAttribute(deepAnyValue(MAX_VALUE_DEPTH + 1)), PB), 400, /deeper than/);
    expectDecodeError(() => decodeTraces(traceRequestWithAttribute(deepAnyValue(10_000)), PB), 400, /nesting depth/);
  });

  it('rejects truncated bodies, invalid UTF-8 strings and garbage with 400', () => {
    const good = traceRequestWithAttribute(deepAnyValue(1));
    expectDecodeError(() => decodeTraces(good.subarray(0, good.length - 3), PB), 400, /not a valid ExportTraceServiceRequest protobuf/);
    const badString = Buffer.from(good);
    badString[badString.indexOf('deep')] = 0xff;
    expectDecodeError(() => decodeTraces(badString, PB), 400, /UTF-8/);
    expectDecodeError(() => decodeLogs(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), PB), 400, /protobuf/);
  });
});

describe('media types', () => {
  it('accepts the two OTLP types with parameters and refuses others with 415', () => {
    expect(otlpMediaType('Application/JSON; charset=utf-8')).toBe('application/json');
    expect(otlpMediaType('application/x-protobuf')).toBe('application/x-protobuf');
    expectDecodeError(() => otlpMediaType('text/plain'), 415, /text\/plain/);
    expectDecodeError(() => otlpMediaType(undefined), 415, /\(none\)/);
  });
});

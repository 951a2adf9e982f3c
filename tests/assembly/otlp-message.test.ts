/**
 * Messages of the Collector kafka exporter's OTLP topics, as its pdata marshalers write them
 * (tests/fixtures/otlp-kafka, made by scripts/collector/kafka-fixtures with the marshalers of the
 * release the test Collector is built from): decoded in both encodings, recognised without a header,
 * captured into triplets like OTLP/HTTP bodies; and every way a message can be refused is named.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodeOtlpMessage, messageEncoding } from '../../src/assembly/otlp-message.ts';
import { Capture } from '../../src/capture/capture.ts';
import type { CapturedLog, CapturedSpan } from '../../src/capture/types.ts';
import { loadConfig } from '../../src/config/load.ts';
import { createInstruments } from '../../src/telemetry/instruments.ts';
import type { Triplet } from '../../src/triplet.ts';

const dir = fileURLToPath(new URL('../fixtures/otlp-kafka/', import.meta.url));
const fixture = (name: string): Buffer => readFileSync(`${dir}${name}`);
const MAX = 4 * 1024 * 1024;
const TRACE_1 = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACE_2 = '0af7651916cd43dd8448eb211c80319c';

async function capture(spans: CapturedSpan[], logs: CapturedLog[] = []): Promise<Triplet[]> {
  const config = loadConfig({ env: {} });
  const out: Triplet[] = [];
  const c = new Capture({ config: { ...config.capture, traceIdleMs: 2 ** 31 - 1, traceMaxAgeMs: 2 ** 31 - 1 }, instruments: createInstruments({ processMetrics: false }), onTriplet: (t) => out.push(t), sweepIntervalMs: 2 ** 31 - 1 });
  c.addLogs(logs, 'otlp');
  c.addSpans(spans, 'otlp');
  await c.shutdown();
  return out;
}

describe('messages of the Collector kafka exporter', () => {
  it('otlp_proto and otlp_json of one batch decode to the same spans, recognised without a header', () => {
    const proto = decodeOtlpMessage({ value: fixture('traces.otlp_proto.bin') }, 'traces', 'auto', MAX);
    const json = decodeOtlpMessage({ value: fixture('traces.otlp_json.json') }, 'traces', 'auto', MAX);
    if (!proto.ok || !json.ok) throw new Error(`not decoded: ${JSON.stringify([proto, json])}`);
    expect(proto.encoding).toBe('otlp_proto');
    expect(json.encoding).toBe('otlp_json');
    // One message holds the whole exported batch: both traces, three spans each.
    expect(proto.spans).toHaveLength(6);
    expect(new Set(proto.spans.map((s) => s.traceId))).toEqual(new Set([TRACE_1, TRACE_2]));
    expect(json.spans).toEqual(proto.spans);
    const retriever = proto.spans.find((s) => s.traceId === TRACE_1 && s.name === 'VectorStoreRetriever')!;
    expect(retriever.parentSpanId).toBe('0000000000001001');
    expect(retriever.attributes['retrieval.documents.0.document.score']).toBe(0.91);
    expect(retriever.resource['service.name']).toBe('rag-api');
    expect(proto.rejected).toBe(0);
  });

  it('captures one triplet per trace from a message, as from an OTLP/HTTP body', async () => {
    const decoded = decodeOtlpMessage({ value: fixture('traces.otlp_json.json') }, 'traces', 'otlp_json', MAX);
    if (!decoded.ok) throw new Error(decoded.error);
    const triplets = await capture(decoded.spans);
    expect(triplets.map((t) => t.traceId).sort()).toEqual([TRACE_1, TRACE_2].sort());
    const t = triplets.find((x) => x.traceId === TRACE_1)!;
    expect(t.query).toBe('How tall is the Eiffel Tower?');
    expect(t.response).toBe('The Eiffel Tower is 330 metres tall.');
    expect(t.sources.map((s) => s.content)).toEqual(['The Eiffel Tower is 330 metres tall.', "It was completed in 1889 for the World's Fair."]);
    expect(t.service).toBe('rag-api');
    expect(t.convention).toBe('openinference');
  });

  it('partition_traces_by_id: one message per trace, its key the trace id the spans carry', () => {
    for (const id of [TRACE_1, TRACE_2]) {
      const decoded = decodeOtlpMessage({ value: fixture(`trace-${id}.otlp_proto.bin`) }, 'traces', 'auto', MAX);
      if (!decoded.ok) throw new Error(decoded.error);
      expect(decoded.spans).toHaveLength(3);
      expect(new Set(decoded.spans.map((s) => s.traceId))).toEqual(new Set([id]));
    }
  });

  it('logs topic: a GenAI content event joins its span by ids, in both encodings', () => {
    const proto = decodeOtlpMessage({ value: fixture('logs.otlp_proto.bin') }, 'logs', 'auto', MAX);
    const json = decodeOtlpMessage({ value: fixture('logs.otlp_json.json') }, 'logs', 'auto', MAX);
    if (!proto.ok || !json.ok) throw new Error('not decoded');
    expect(proto.logs).toHaveLength(1);
    expect(json.logs).toEqual(proto.logs);
    expect(proto.logs[0]).toMatchObject({ traceId: TRACE_1, spanId: '0000000000001003', eventName: 'gen_ai.choice' });
    expect(proto.logs[0]!.body).toMatchObject({ message: { role: 'assistant', content: 'The Eiffel Tower is 330 metres tall.' } });
    expect(proto.spans).toEqual([]);
  });
});

describe('the encoding of a message', () => {
  it('is the configured one, else the content-type header, else the first byte', () => {
    const json = fixture('traces.otlp_json.json');
    const proto = fixture('traces.otlp_proto.bin');
    expect(messageEncoding(json, undefined, 'auto')).toBe('otlp_json');
    expect(messageEncoding(proto, undefined, 'auto')).toBe('otlp_proto');
    expect(messageEncoding(json, { 'content-type': 'application/x-protobuf' }, 'auto')).toBe('otlp_proto');
    expect(messageEncoding(proto, { 'content-type': Buffer.from('application/json; charset=utf-8') }, 'auto')).toBe('otlp_json');
    expect(messageEncoding(proto, { 'content-type': 'text/plain' }, 'auto')).toEqual({ unsupported: 'text/plain' });
    expect(messageEncoding(json, { 'content-type': 'text/plain' }, 'otlp_json')).toBe('otlp_json');
  });

  it('a protobuf request whose first resourceSpans is 123 bytes long starts 0x0a 0x7b: still protobuf', () => {
    // The first byte decides, never the first non-space one: 0x0a is a newline in JSON and field 1 in protobuf.
    expect(messageEncoding(Buffer.from([0x0a, 0x7b, 0x00]), undefined, 'auto')).toBe('otlp_proto');
  });
});

describe('refused messages, each with its reason', () => {
  it('bytes that are no OTLP request: invalid_otlp, naming the encoding tried', () => {
    const garbage = decodeOtlpMessage({ value: Buffer.from('\x08\x96\x01 definitely not OTLP \xff\xfe') }, 'traces', 'auto', MAX);
    expect(garbage).toMatchObject({ ok: false, reason: 'invalid_otlp' });
    expect(!garbage.ok && garbage.error).toMatch(/^not an OTLP trace export in otlp_proto: /);
    const badJson = decodeOtlpMessage({ value: Buffer.from('{"resourceSpans": [') }, 'traces', 'auto', MAX);
    expect(badJson).toMatchObject({ ok: false, reason: 'invalid_otlp' });
    expect(!badJson.ok && badJson.error).toMatch(/^not an OTLP trace export in otlp_json: body is not valid JSON/);
  });

  it('the wrong configured encoding is refused, never misread', () => {
    const r = decodeOtlpMessage({ value: fixture('traces.otlp_proto.bin') }, 'traces', 'otlp_json', MAX);
    expect(r).toMatchObject({ ok: false, reason: 'invalid_otlp' });
    const s = decodeOtlpMessage({ value: fixture('traces.otlp_json.json') }, 'traces', 'otlp_proto', MAX);
    expect(s).toMatchObject({ ok: false, reason: 'invalid_otlp' });
  });

  it('a value over maxMessageBytes is refused before decoding', () => {
    const value = fixture('traces.otlp_proto.bin');
    const r = decodeOtlpMessage({ value }, 'traces', 'auto', value.length - 1);
    expect(r).toEqual({ ok: false, reason: 'too_large', error: `value is ${value.length} bytes, ingest.kafka.maxMessageBytes is ${value.length - 1}` });
    expect(decodeOtlpMessage({ value }, 'traces', 'auto', value.length).ok).toBe(true);
  });

  it('an unsupported content-type header', () => {
    const r = decodeOtlpMessage({ value: fixture('traces.otlp_proto.bin'), headers: { 'content-type': 'application/avro' } }, 'traces', 'auto', MAX);
    expect(r).toMatchObject({ ok: false, reason: 'unsupported_content_type' });
  });

  it('an empty value is an empty protobuf request (no spans, nothing refused); as JSON it is invalid', () => {
    expect(decodeOtlpMessage({ value: null }, 'traces', 'auto', MAX)).toEqual({ ok: true, encoding: 'otlp_proto', spans: [], logs: [], rejected: 0 });
    expect(decodeOtlpMessage({ value: Buffer.alloc(0) }, 'logs', 'otlp_json', MAX)).toMatchObject({ ok: false, reason: 'invalid_otlp' });
  });

  it('spans without valid ids are rejected one by one, the rest kept (partial success)', () => {
    const body = JSON.parse(fixture('traces.otlp_json.json').toString('utf8')) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ spanId: string }> }> }> };
    body.resourceSpans[0]!.scopeSpans[0]!.spans[1]!.spanId = 'xyz';
    const r = decodeOtlpMessage({ value: Buffer.from(JSON.stringify(body)) }, 'traces', 'auto', MAX);
    expect(r).toMatchObject({ ok: true, rejected: 1, errorMessage: 'span without a valid traceId/spanId' });
    expect(r.ok && r.spans).toHaveLength(5);
  });
});

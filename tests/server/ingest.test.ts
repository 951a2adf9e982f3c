/**
 * OTLP/HTTP ingest through the real ports of `startApp`: JSON and protobuf (from the real SDK
 * serializers), gzip, partial success, logs, responses in the request's encoding, and hostile
 * bodies that must get the right 4xx while the process stays healthy with bounded memory.
 */
import { Readable } from 'node:stream';
import { createGzip, gzipSync } from 'node:zlib';
import { ProtobufLogsSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import protobuf from 'protobufjs/light.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type RunningApp } from '../../src/roles/start.ts';
import type { CapturedLog, CapturedSpan } from '../../src/capture/types.ts';
import { decodeStatus } from '../../src/capture/otlp/protobuf.ts';
import { configSchema } from '../../src/config/schema.ts';
import { deepAnyValue, deepJsonAnyValue } from '../capture/otlp/hostile.ts';
import { sdkFixture, type SdkFixture } from '../capture/otlp/sdk-fixtures.ts';
import { metricValue } from '../helpers/process.ts';
import { chunks, post } from './ingest-client.ts';

const MAX_BODY_BYTES = 4 * 1024 * 1024;
const JSON_HEADERS = { 'content-type': 'application/json' };
const PB_HEADERS = { 'content-type': 'application/x-protobuf' };
const TRACE_ID = '5b8efff798038103d269b633813fc60c';
const SPAN_ID = 'eee19b7ec3c1b174';

describe('OTLP/HTTP ingest on the real port', () => {
  let app: RunningApp;
  let otlp: string;
  let http: string;
  let fx: SdkFixture;
  const spans: CapturedSpan[] = [];
  const logs: CapturedLog[] = [];

  beforeAll(async () => {
    fx = await sdkFixture();
    const config = configSchema.parse({ server: { otlpPort: 0, otlpGrpcPort: 0, httpPort: 0, maxBodyBytes: MAX_BODY_BYTES } });
    app = await startApp(config);
    otlp = `http://127.0.0.1:${app.otlp.port}`;
    http = `http://127.0.0.1:${app.http.port}`;
    // Observe what ingest hands to the pipeline (the app looks the methods up per call).
    const { pipeline } = app;
    const ingestSpans = pipeline.ingestSpans.bind(pipeline);
    const ingestLogs = pipeline.ingestLogs.bind(pipeline);
    pipeline.ingestSpans = (s, source) => {
      spans.push(...s);
      ingestSpans(s, source);
    };
    pipeline.ingestLogs = (l, source) => {
      logs.push(...l);
      ingestLogs(l, source);
    };
  });

  afterAll(async () => {
    await app?.shutdown();
  });

  const metrics = async () => (await fetch(`${http}/metrics`)).text();

  it('accepts OTLP/JSON traces with an empty JSON response', async () => {
    spans.length = 0;
    const res = await post(`${otlp}/v1/traces`, JSON_HEADERS, fx.traceJson);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(res.body.toString())).toEqual({});
    expect(spans.map((s) => s.name).sort()).toEqual(['ChatCompletion', 'rag.request', 'retrieve']);
  });

  it('accepts protobuf traces and answers with a protobuf ExportTraceServiceResponse', async () => {
    spans.length = 0;
    const res = await post(`${otlp}/v1/traces`, PB_HEADERS, fx.traceProtobuf);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-protobuf');
    expect(ProtobufTraceSerializer.deserializeResponse(res.body).partialSuccess).toBeUndefined();
    expect(spans).toHaveLength(3);
    expect(spans.find((s) => s.name === 'ChatCompletion')?.attributes['gen_ai.usage.output_tokens']).toBe(42);
  });

  it('accepts gzip-encoded JSON and protobuf', async () => {
    spans.length = 0;
    const a = await post(`${otlp}/v1/traces`, { ...JSON_HEADERS, 'content-encoding': 'gzip' }, gzipSync(fx.traceJson));
    const b = await post(`${otlp}/v1/traces`, { ...PB_HEADERS, 'content-encoding': 'gzip' }, gzipSync(fx.traceProtobuf));
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(spans).toHaveLength(6);
  });

  it('answers partial success in JSON and protobuf, accepting the valid spans', async () => {
    spans.length = 0;
    const body = { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: TRACE_ID, spanId: SPAN_ID, name: 'good' }, { traceId: 'zz', spanId: SPAN_ID, name: 'bad' }] }] }] };
    const res = await post(`${otlp}/v1/traces`, JSON_HEADERS, JSON.stringify(body));
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.toString())).toEqual({ partialSuccess: { rejectedSpans: '1', errorMessage: expect.stringMatching(/traceId/) } });
    expect(spans.map((s) => s.name)).toEqual(['good']);

    // The same request as protobuf: the bad span's 3-byte trace id is rejected.
    const w = protobuf.Writer;
    const span = (traceId: Buffer) => w.create().uint32(10).bytes(traceId).uint32(18).bytes(Buffer.from(SPAN_ID, 'hex')).finish();
    const scope = w.create().uint32(18).bytes(span(Buffer.from(TRACE_ID, 'hex'))).uint32(18).bytes(span(Buffer.from('abcdef', 'hex'))).finish();
    const request = w.create().uint32(10).bytes(w.create().uint32(18).bytes(scope).finish()).finish();
    const pb = await post(`${otlp}/v1/traces`, PB_HEADERS, request);
    expect(pb.status).toBe(200);
    const partial = ProtobufTraceSerializer.deserializeResponse(pb.body).partialSuccess;
    expect(Number(partial?.rejectedSpans)).toBe(1);
    expect(partial?.errorMessage).toMatch(/traceId/);
    const text = await metrics();
    expect(metricValue(text, 'ragwatch_dropped_total', { stage: 'ingest', reason: 'invalid_span' })).toBe(2);
    expect(metricValue(text, 'ragwatch_ingest_requests_total', { endpoint: '/v1/traces', status: '200', reason: 'partial' })).toBe(2);
  });

  it('delivers log records (JSON and protobuf) with ids, event name, body and attributes', async () => {
    logs.length = 0;
    const a = await post(`${otlp}/v1/logs`, JSON_HEADERS, fx.logsJson);
    const b = await post(`${otlp}/v1/logs`, PB_HEADERS, fx.logsProtobuf);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(JSON.parse(a.body.toString())).toEqual({});
    expect(ProtobufLogsSerializer.deserializeResponse(b.body).partialSuccess).toBeUndefined();
    expect(logs).toHaveLength(4);
    expect(logs[2]).toEqual(logs[0]);
    const llm = fx.spans.find((s) => s.name === 'ChatCompletion')!;
    expect(logs[0]).toMatchObject({
      traceId: llm.spanContext().traceId,
      spanId: llm.spanContext().spanId,
      eventName: 'gen_ai.choice',
      body: { index: 0, message: { role: 'assistant', content: 'Paris.' } },
      attributes: { 'gen_ai.system': 'openai' },
    });
    expect(metricValue(await metrics(), 'ragwatch_logs_received_total', { source: 'otlp' })).toBe(4);
  });

  describe('hostile bodies', () => {
    let rssBefore: number;
    let peakRss = 0;
    let sampler: NodeJS.Timeout;
    beforeAll(async () => {
      // The judge model loads in the background; let it finish so it does not count as ingest memory.
      await app.pipeline.start();
      rssBefore = process.memoryUsage.rss();
      sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 20);
    });
    afterAll(() => clearInterval(sampler));

    const expectStatus = async (res: Awaited<ReturnType<typeof post>>, status: number, message: RegExp) => {
      expect(res.status).toBe(status);
      const body = res.headers['content-type'] === 'application/x-protobuf' ? decodeStatus(res.body) : (JSON.parse(res.body.toString()) as { message: string });
      expect(body.message).toMatch(message);
    };

    it('100 MB declared in Content-Length → 413 before reading it', async () => {
      const res = await post(`${otlp}/v1/traces`, { ...JSON_HEADERS, 'content-length': 100 * 1024 * 1024 }, chunks(100, 1024 * 1024));
      await expectStatus(res, 413, /exceeds/);
    });

    it('100 MB streamed without Content-Length → 413 once the limit is passed', async () => {
      const res = await post(`${otlp}/v1/traces`, { ...PB_HEADERS, 'transfer-encoding': 'chunked' }, chunks(100, 1024 * 1024));
      await expectStatus(res, 413, /exceeds/);
      expect(res.headers['content-type']).toBe('application/x-protobuf');
    });

    it('gzip bomb (small gzip expanding past the limit) → 413', async () => {
      // 64 MiB of spaces, compressed chunk by chunk so the test itself never holds them.
      const parts: Buffer[] = [];
      for await (const part of Readable.from(chunks(64, 1024 * 1024)()).pipe(createGzip())) parts.push(part as Buffer);
      const bomb = Buffer.concat(parts);
      expect(bomb.length).toBeLessThan(MAX_BODY_BYTES / 10);
      const res = await post(`${otlp}/v1/logs`, { ...JSON_HEADERS, 'content-encoding': 'gzip' }, bomb);
      await expectStatus(res, 413, /decompressed body exceeds/);
    });

    it('10k-deep nesting → 400 (JSON and protobuf)', async () => {
      const deep = deepJsonAnyValue(10_000);
      const json = `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"${TRACE_ID}","spanId":"${SPAN_ID}","attributes":[{"key":"d","value":${deep}}]}]}]}]}`;
      await expectStatus(await post(`${otlp}/v1/traces`, JSON_HEADERS, json), 400, /nested deeper/);
      const record = protobuf.Writer.create().uint32(42).bytes(deepAnyValue(10_000)).finish(); // LogRecord.body
      const request = protobuf.Writer.create().uint32(10).bytes(protobuf.Writer.create().uint32(18).bytes(protobuf.Writer.create().uint32(18).bytes(record).finish()).finish()).finish();
      await expectStatus(await post(`${otlp}/v1/logs`, PB_HEADERS, request), 400, /nesting depth/);
    });

    it('invalid UTF-8 → 400', async () => {
      const body = Buffer.concat([Buffer.from('{"resourceSpans":[],"x":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}')]);
      await expectStatus(await post(`${otlp}/v1/traces`, JSON_HEADERS, body), 400, /UTF-8/);
    });

    it('wrong content type or encoding → 415', async () => {
      await expectStatus(await post(`${otlp}/v1/traces`, { 'content-type': 'text/plain' }, fx.traceJson), 415, /Content-Type/);
      await expectStatus(await post(`${otlp}/v1/traces`, { ...JSON_HEADERS, 'content-encoding': 'br' }, fx.traceJson), 415, /Content-Encoding/);
    });

    it('leaves the process healthy, with bounded memory, and counts every rejection', async () => {
      expect((await fetch(`${http}/healthz`)).status).toBe(200);
      const ok = await post(`${otlp}/v1/traces`, JSON_HEADERS, fx.traceJson);
      expect(ok.status).toBe(200);
      // Nothing near the 100 MB bodies or the 64 MiB bomb was ever held (the limit is 4 MiB).
      expect(peakRss - rssBefore).toBeLessThan(48 * 1024 * 1024);
      const text = await metrics();
      const count = (endpoint: string, status: string) => metricValue(text, 'ragwatch_ingest_requests_total', { endpoint, status }) ?? 0;
      expect(count('/v1/traces', '413')).toBe(2);
      expect(count('/v1/logs', '413')).toBe(1);
      expect(count('/v1/traces', '400') + count('/v1/logs', '400')).toBe(3);
      expect(count('/v1/traces', '415')).toBe(2);
    });
  });
});

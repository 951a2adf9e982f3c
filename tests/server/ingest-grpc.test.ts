/**
 * OTLP/gRPC ingest (issue 38) with the real OpenTelemetry JS exporters (`@opentelemetry/exporter-trace-otlp-grpc`,
 * `…-logs-otlp-grpc`), configured only through `OTEL_EXPORTER_OTLP_*` (endpoint, gzip, the bearer token in
 * the headers), against `ragwatch start` in process: a RAG trace becomes the same triplet as its OTLP/HTTP
 * twin, logs are accepted, an export without the token fails UNAUTHENTICATED; a raw gRPC client gets
 * RESOURCE_EXHAUSTED over maxBodyBytes (also a gzip bomb, checked after decompression) and
 * INVALID_ARGUMENT for malformed protobuf, the process unharmed; load shedding answers UNAVAILABLE with a
 * RetryInfo and the exporter's retry succeeds; a shutdown during a stream of exports loses nothing that was
 * acknowledged; every call is counted with `transport="grpc"`.
 */
import * as grpc from '@grpc/grpc-js';
import { SpanKind, context, trace } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPLogExporter } from '@opentelemetry/exporter-logs-otlp-grpc';
import { OTLPTraceExporter as GrpcTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as HttpTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor, type ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeRetryDelaySeconds } from '../../src/capture/otlp/protobuf.ts';
import { loadConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { startApp, type RunningApp } from '../../src/roles/start.ts';
import { ingestGuardOf } from '../../src/server/ingest-app.ts';
import { startGrpcIngest } from '../../src/server/ingest-grpc.ts';
import type { SampledTriplet } from '../../src/triplet.ts';
import { LexicalJudge } from '../helpers/lexical-judge.ts';
import { metricValue, waitFor } from '../helpers/process.ts';

const TOKEN = 'grpc-ingest-token-0123456789';
const MAX_BODY = 256 * 1024;

/** One RAG trace (OpenInference: chain, retriever, LLM) recorded with the real SDK. */
async function ragSpans(question: string): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const tracer = provider.getTracer('rag-service', '1.0.0');
  const root = tracer.startSpan('POST /ask', { kind: SpanKind.SERVER, attributes: { 'http.route': '/ask', 'openinference.span.kind': 'CHAIN', 'input.value': question } });
  const ctx = trace.setSpan(context.active(), root);
  tracer.startSpan('retrieve', { attributes: { 'openinference.span.kind': 'RETRIEVER', 'input.value': question, 'retrieval.documents.0.document.id': 'wiki-42', 'retrieval.documents.0.document.content': 'The Chimnabai Clock Tower in Vadodara was completed in 1896.' } }, ctx).end();
  tracer.startSpan('llm', { kind: SpanKind.CLIENT, attributes: { 'openinference.span.kind': 'LLM', 'llm.model_name': 'gpt-4o-mini', 'llm.input_messages.0.message.role': 'user', 'llm.input_messages.0.message.content': question, 'llm.output_messages.0.message.role': 'assistant', 'llm.output_messages.0.message.content': 'It was completed in 1896.' } }, ctx).end();
  root.end();
  await provider.forceFlush();
  const spans = exporter.getFinishedSpans();
  await provider.shutdown();
  return spans;
}

async function logRecords(): Promise<ReadableLogRecord[]> {
  const exporter = new InMemoryLogRecordExporter();
  const provider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter })] });
  provider.getLogger('rag-service').emit({ body: 'retrieval finished', attributes: { 'log.count': 1 } });
  await provider.forceFlush();
  return exporter.getFinishedLogRecords();
}

const exported = (exporter: { export(items: never[], cb: (r: ExportResult) => void): void }, items: unknown[]) => new Promise<ExportResult>((resolve) => exporter.export(items as never[], resolve));

/** A raw unary client of one OTLP/gRPC method (bytes in, bytes out). */
function rawClient(port: number, path: string, options: grpc.ClientOptions = {}) {
  const Client = grpc.makeGenericClientConstructor({ Export: { path, requestStream: false, responseStream: false, requestSerialize: (b: Buffer) => b, requestDeserialize: (b: Buffer) => b, responseSerialize: (b: Buffer) => b, responseDeserialize: (b: Buffer) => b } }, 'Export');
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), options) as unknown as grpc.Client & { Export(req: Buffer, md: grpc.Metadata, callOptions: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res?: Buffer) => void): void };
  const call = (body: Buffer, token: string | undefined = TOKEN, callOptions: grpc.CallOptions = {}) =>
    new Promise<{ err: grpc.ServiceError | null; res?: Buffer }>((resolve) => {
      const md = new grpc.Metadata();
      if (token) md.set('authorization', `Bearer ${token}`);
      client.Export(body, md, callOptions, (err, res) => resolve({ err, ...(res ? { res } : {}) }));
    });
  return { call, close: () => client.close() };
}
const TRACES = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

describe('OTLP/gRPC ingest through ragwatch start', () => {
  let app: RunningApp;
  const triplets: SampledTriplet[] = [];
  const env = { ...process.env };

  beforeAll(async () => {
    const config = loadConfig({ env: {}, overrides: { server: { otlpPort: 0, otlpGrpcPort: 0, httpPort: 0, bearerToken: TOKEN, maxBodyBytes: MAX_BODY }, metrics: { processMetrics: false }, capture: { traceIdleMs: 100 } } });
    app = await startApp(config, silentLogger, { judge: new LexicalJudge() });
    app.pipeline.sinks.add({ onRecord: (_r, t) => void (t && triplets.push(t)) });
    await waitFor(() => app.pipeline.ready, 30_000);
    // What a service sets to export here, and nothing else.
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${app.otlpGrpc!.port}`;
    process.env.OTEL_EXPORTER_OTLP_COMPRESSION = 'gzip';
    process.env.OTEL_EXPORTER_OTLP_HEADERS = `authorization=Bearer ${TOKEN}`;
  }, 60_000);

  afterAll(async () => {
    process.env = env;
    await app?.shutdown();
  });

  const counted = async (labels: Record<string, string>) => metricValue(await app.pipeline.instruments.registry.metrics(), 'ragwatch_ingest_requests_total', { transport: 'grpc', ...labels }) ?? 0;

  it('captures and scores a trace exported over gRPC as the same triplet as its OTLP/HTTP twin; logs are accepted', async () => {
    const grpcExporter = new GrpcTraceExporter();
    const httpExporter = new HttpTraceExporter({ url: `http://127.0.0.1:${app.otlp.port}/v1/traces`, headers: { authorization: `Bearer ${TOKEN}` } });
    expect((await exported(grpcExporter, await ragSpans('When was the Chimnabai Clock Tower completed?'))).code).toBe(ExportResultCode.SUCCESS);
    expect((await exported(httpExporter, await ragSpans('When was the Chimnabai Clock Tower completed?'))).code).toBe(ExportResultCode.SUCCESS);
    await waitFor(() => triplets.length >= 2, 15_000);
    const strip = (t: SampledTriplet) => ({ query: t.query, sources: t.sources, response: t.response, service: t.service, route: t.route, model: t.model, convention: t.convention, redactions: t.redactions });
    expect(strip(triplets[0]!)).toEqual(strip(triplets[1]!));
    expect(triplets[0]).toMatchObject({ query: 'When was the Chimnabai Clock Tower completed?', response: 'It was completed in 1896.', sources: [{ id: 'wiki-42' }] });
    const logs = new OTLPLogExporter();
    expect((await exported(logs, await logRecords())).code).toBe(ExportResultCode.SUCCESS);
    const text = await app.pipeline.instruments.registry.metrics();
    expect(metricValue(text, 'ragwatch_logs_received_total', { source: 'otlp' })).toBe(1);
    expect(await counted({ endpoint: '/v1/traces', reason: 'ok' })).toBe(1);
    expect(await counted({ endpoint: '/v1/logs', reason: 'ok' })).toBe(1);
    await Promise.all([grpcExporter.shutdown(), httpExporter.shutdown(), logs.shutdown()]);
  });

  it('an export without the token fails UNAUTHENTICATED', async () => {
    process.env.OTEL_EXPORTER_OTLP_HEADERS = '';
    const exporter = new GrpcTraceExporter();
    process.env.OTEL_EXPORTER_OTLP_HEADERS = `authorization=Bearer ${TOKEN}`;
    const r = await exported(exporter, await ragSpans('q'));
    expect(r.code).toBe(ExportResultCode.FAILED);
    expect(String(r.error?.message)).toMatch(/UNAUTHENTICATED|16/);
    expect(await counted({ reason: 'unauthorized', status: '401' })).toBe(1);
    await exporter.shutdown();
  });

  it('over maxBodyBytes — also a gzip bomb, checked after decompression — RESOURCE_EXHAUSTED; malformed protobuf INVALID_ARGUMENT; the process unharmed', async () => {
    const plain = rawClient(app.otlpGrpc!.port, TRACES, { 'grpc.max_send_message_length': 64 * 1024 * 1024 });
    const big = await plain.call(Buffer.alloc(MAX_BODY + 1, 1));
    expect(big.err?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    const bad = await plain.call(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]));
    expect(bad.err?.code).toBe(grpc.status.INVALID_ARGUMENT);
    // 8 MiB of zeros, a few KiB on the wire.
    const gzip = rawClient(app.otlpGrpc!.port, TRACES, { 'grpc.default_compression_algorithm': 2 });
    const bomb = await gzip.call(Buffer.alloc(8 * 1024 * 1024));
    expect(bomb.err?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(gzipSync(Buffer.alloc(8 * 1024 * 1024)).length).toBeLessThan(MAX_BODY);
    // Still serving, over both transports.
    expect((await plain.call(Buffer.alloc(0))).err).toBeNull();
    expect((await fetch(`http://127.0.0.1:${app.http.port}/healthz`)).status).toBe(200);
    expect(await counted({ reason: 'too_large', status: '413' })).toBe(2);
    expect(await counted({ reason: 'invalid', status: '400' })).toBe(1);
    plain.close();
    gzip.close();
  });
});

describe('OTLP/gRPC load shedding and shutdown', () => {
  it('answers UNAVAILABLE with a RetryInfo while saturated; a client that retries as the OTLP spec says succeeds', async () => {
    let refusals = 1;
    const spans: number[] = [];
    const guard = ingestGuardOf({ saturation: () => (refusals-- > 0 ? 'test saturation' : undefined) });
    const server = await startGrpcIngest('127.0.0.1', 0, { guard, maxBodyBytes: MAX_BODY, onSpans: (s) => spans.push(s.length), onLogs: () => undefined });
    try {
      const raw = rawClient(server.port, TRACES);
      const shed = await raw.call(Buffer.alloc(0), undefined);
      expect(shed.err?.code).toBe(grpc.status.UNAVAILABLE);
      const delay = decodeRetryDelaySeconds(shed.err!.metadata.get('grpc-status-details-bin')[0] as Buffer);
      expect(delay).toBe(1);
      // The OTel Collector's and Python's exporters retry UNAVAILABLE after the RetryInfo delay (the JS
      // gRPC exporter treats every gRPC error as final: docs/ingest.md); the retry gets through.
      await new Promise((r) => setTimeout(r, delay! * 1000));
      const retried = await raw.call(Buffer.from(ProtobufTraceSerializer.serializeRequest(await ragSpans('q'))!), undefined);
      expect(retried.err).toBeNull();
      expect(spans).toEqual([3]);
      raw.close();
    } finally {
      await server.close();
    }
  }, 30_000);

  it('a refused call delivers nothing, and every admitted call gives its slot back, however it ends', async () => {
    let saturated = false;
    const spans: number[] = [];
    const guard = ingestGuardOf({ bearerToken: TOKEN, maxConcurrentRequests: 3, saturation: () => (saturated ? 'test saturation' : undefined) });
    const server = await startGrpcIngest('127.0.0.1', 0, { guard, maxBodyBytes: MAX_BODY, onSpans: (s) => spans.push(s.length), onLogs: () => undefined });
    const body = Buffer.from(ProtobufTraceSerializer.serializeRequest(await ragSpans('q'))!);
    const raw = rawClient(server.port, TRACES, { 'grpc.max_send_message_length': 64 * 1024 * 1024 });
    try {
      saturated = true;
      expect((await raw.call(body)).err?.code).toBe(grpc.status.UNAVAILABLE);
      expect((await raw.call(body, 'wrong')).err?.code).toBe(grpc.status.UNAUTHENTICATED);
      expect(spans).toEqual([]);
      saturated = false;
      // As many calls as slots, each ending its own way: accepted, malformed, over the size limit
      // (refused by grpc-js after admission); then one cut by its own deadline.
      const outcomes = await Promise.all([
        raw.call(body),
        raw.call(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01])),
        raw.call(Buffer.alloc(MAX_BODY + 1, 1)),
      ]);
      expect(outcomes.map((o) => o.err?.code ?? grpc.status.OK)).toEqual([grpc.status.OK, grpc.status.INVALID_ARGUMENT, grpc.status.RESOURCE_EXHAUSTED]);
      await raw.call(Buffer.alloc(MAX_BODY, 1), TOKEN, { deadline: Date.now() + 1 });
      await waitFor(() => guard.active === 0, 5_000);
      // Every slot free again: three calls at once are admitted.
      const again = await Promise.all([raw.call(body), raw.call(body), raw.call(body)]);
      expect(again.map((o) => o.err)).toEqual([null, null, null]);
      expect(spans).toEqual([3, 3, 3, 3]);
      expect(guard.active).toBe(0);
    } finally {
      raw.close();
      await server.close();
    }
  }, 30_000);

  it('a shutdown during a stream of exports loses nothing that was acknowledged', async () => {
    const config = loadConfig({ env: {}, overrides: { server: { otlpPort: 0, otlpGrpcPort: 0, httpPort: 0 }, metrics: { processMetrics: false } } });
    const app = await startApp(config, silentLogger, { judge: new LexicalJudge() });
    const exporter = new GrpcTraceExporter({ url: `http://127.0.0.1:${app.otlpGrpc!.port}`, timeoutMillis: 2_000 });
    const batches = await Promise.all(Array.from({ length: 40 }, (_, i) => ragSpans(`question ${i}`)));
    const results: Array<Promise<ExportResult>> = [];
    for (const [i, b] of batches.entries()) {
      results.push(exported(exporter, b));
      if (i === 20) void app.shutdown();
      await new Promise((r) => setTimeout(r, 2));
    }
    const done = await Promise.all(results);
    await app.shutdown();
    const acked = done.filter((r) => r.code === ExportResultCode.SUCCESS).length * 3;
    const received = metricValue(await app.pipeline.instruments.registry.metrics(), 'ragwatch_spans_received_total', { source: 'otlp' }) ?? 0;
    expect(acked).toBeGreaterThan(0);
    expect(received).toBe(acked);
    await exporter.shutdown();
  }, 60_000);
});

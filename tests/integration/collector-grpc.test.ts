/**
 * A real OpenTelemetry Collector (scripts/collector, the project's own build) in front of `ragwatch
 * start`, configured as docs/ingest.md tells users: the service exports OTLP/gRPC to the Collector, whose
 * `otlp_grpc` exporter sends to ragwatch's OTLP/gRPC port with gzip and the bearer token in its
 * `headers`. Each RAG trace arrives through the Collector and, as a twin with the same content, straight
 * from the service: both become the same triplet with the same scores. A Collector with a wrong token
 * gets nothing in (UNAUTHENTICATED, counted by ragwatch), so the token really travels in `headers`.
 */
import { Metadata } from '@grpc/grpc-js';
import { SpanKind, context, trace } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { startApp, type RunningApp } from '../../src/roles/start.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';
import { LexicalJudge } from '../helpers/lexical-judge.ts';
import { haveCollector, startCollector } from '../helpers/otel-collector.ts';
import { metricValue, waitFor } from '../helpers/process.ts';

const TOKEN = 'collector-grpc-token-0123456789';

const QUESTIONS = [
  { q: 'When was the Chimnabai Clock Tower completed?', doc: 'The Chimnabai Clock Tower in Vadodara was completed in 1896.', a: 'It was completed in 1896.' },
  { q: 'How tall is the Eiffel Tower?', doc: 'The Eiffel Tower is 330 metres tall.', a: 'The Eiffel Tower is 330 metres tall and painted gold.' },
  { q: 'Who designed the Sydney Opera House?', doc: 'The Sydney Opera House was designed by Jørn Utzon.', a: 'Jørn Utzon designed it.' },
];

/** One RAG trace (OpenInference: chain, retriever, LLM) recorded with the real OpenTelemetry JS SDK. */
async function ragSpans(question: string, doc: string, answer: string): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ resource: resourceFromAttributes({ 'service.name': 'rag-api' }), spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const tracer = provider.getTracer('rag-service', '1.0.0');
  const root = tracer.startSpan('POST /ask', { kind: SpanKind.SERVER, attributes: { 'http.route': '/ask', 'openinference.span.kind': 'CHAIN', 'input.value': question } });
  const ctx = trace.setSpan(context.active(), root);
  tracer.startSpan('retrieve', { attributes: { 'openinference.span.kind': 'RETRIEVER', 'input.value': question, 'retrieval.documents.0.document.id': 'kb-1', 'retrieval.documents.0.document.content': doc } }, ctx).end();
  tracer.startSpan('llm', { kind: SpanKind.CLIENT, attributes: { 'openinference.span.kind': 'LLM', 'llm.model_name': 'gpt-4o-mini', 'llm.input_messages.0.message.role': 'user', 'llm.input_messages.0.message.content': question, 'llm.output_messages.0.message.role': 'assistant', 'llm.output_messages.0.message.content': answer } }, ctx).end();
  root.end();
  await provider.forceFlush();
  const spans = exporter.getFinishedSpans();
  await provider.shutdown();
  return spans;
}

const exported = (exporter: OTLPTraceExporter, spans: ReadableSpan[]) => new Promise<ExportResult>((resolve) => exporter.export(spans, resolve));

/** The Collector config users are told to write (docs/ingest.md, "Behind an OpenTelemetry Collector"). */
function collectorConfig(ragwatchGrpcPort: number): string {
  return `
receivers:
  otlp:
    protocols:
      grpc: {endpoint: "127.0.0.1:\${env:OTLP_GRPC_PORT}"}
processors:
  batch: {timeout: 200ms}
exporters:
  otlp_grpc:
    endpoint: "127.0.0.1:${ragwatchGrpcPort}"
    tls: {insecure: true}
    compression: gzip
    headers:
      authorization: "Bearer \${env:RAGWATCH_TOKEN}"
service:
  pipelines:
    traces: {receivers: [otlp], processors: [batch], exporters: [otlp_grpc]}
`;
}

const ok = haveCollector('collector-grpc');

describe.skipIf(!ok)('service → OpenTelemetry Collector (otlp_grpc, gzip, bearer in headers) → ragwatch start', () => {
  let app: RunningApp;
  const env = { ...process.env };
  const scored: Array<{ record: ScoreRecord; triplet: SampledTriplet }> = [];

  beforeAll(async () => {
    // The service's exporters (to the Collector, and the twin straight to ragwatch) gzip as users set them to.
    process.env.OTEL_EXPORTER_OTLP_COMPRESSION = 'gzip';
    const config = loadConfig({ env: {}, overrides: { server: { otlpPort: 0, otlpGrpcPort: 0, httpPort: 0, bearerToken: TOKEN }, metrics: { processMetrics: false }, capture: { traceIdleMs: 300 } } });
    app = await startApp(config, silentLogger, { judge: new LexicalJudge() });
    app.pipeline.sinks.add({ onRecord: (record, triplet) => void (triplet && scored.push({ record, triplet })) });
    await waitFor(() => app.pipeline.ready, 30_000);
  }, 60_000);

  afterAll(async () => {
    process.env = env;
    await app?.shutdown();
  });

  const grpcCalls = async (reason: string) => metricValue(await app.pipeline.instruments.registry.metrics(), 'ragwatch_ingest_requests_total', { transport: 'grpc', endpoint: '/v1/traces', reason }) ?? 0;

  it('captures and scores every trace the same as its twin sent without the Collector', async () => {
    const otelcol = await startCollector(collectorConfig(app.otlpGrpc!.port), { env: { RAGWATCH_TOKEN: TOKEN } });
    const viaCollector = new OTLPTraceExporter({ url: `http://127.0.0.1:${otelcol.ports.otlpGrpc}` });
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${TOKEN}`);
    const direct = new OTLPTraceExporter({ url: `http://127.0.0.1:${app.otlpGrpc!.port}`, metadata });
    try {
      const pairs: Array<{ collector: string; direct: string }> = [];
      for (const { q, doc, a } of QUESTIONS) {
        const a1 = await ragSpans(q, doc, a);
        const a2 = await ragSpans(q, doc, a);
        expect((await exported(viaCollector, a1)).code).toBe(ExportResultCode.SUCCESS);
        expect((await exported(direct, a2)).code).toBe(ExportResultCode.SUCCESS);
        pairs.push({ collector: a1[0]!.spanContext().traceId, direct: a2[0]!.spanContext().traceId });
      }
      await waitFor(() => scored.length >= 2 * QUESTIONS.length, 60_000);
      const byTrace = new Map(scored.map((s) => [s.triplet.traceId, s]));
      const same = (s: { record: ScoreRecord; triplet: SampledTriplet }) => ({
        query: s.triplet.query,
        sources: s.triplet.sources,
        response: s.triplet.response,
        service: s.triplet.service,
        route: s.triplet.route,
        model: s.triplet.model,
        convention: s.triplet.convention,
        scores: s.record.scores,
        skipped: s.record.skipped,
      });
      for (const [i, pair] of pairs.entries()) {
        const through = byTrace.get(pair.collector);
        const twin = byTrace.get(pair.direct);
        expect(through, `trace ${pair.collector} through the Collector was scored`).toBeDefined();
        expect(same(through!)).toEqual(same(twin!));
        expect(through!.triplet).toMatchObject({ query: QUESTIONS[i]!.q, response: QUESTIONS[i]!.a, sources: [{ id: 'kb-1', content: QUESTIONS[i]!.doc }], service: 'rag-api', model: 'gpt-4o-mini' });
      }
      // Each trace once: no duplicate from the Collector's retries or batching.
      expect(scored).toHaveLength(2 * QUESTIONS.length);
      // The hallucinated "painted gold" sentence is ungrounded on both paths alike.
      expect(byTrace.get(pairs[1]!.collector)!.record.scores.groundedness).toBeLessThan(1);
      // The Collector's batches arrived as authenticated gRPC exports.
      expect(await grpcCalls('ok')).toBeGreaterThanOrEqual(2);
    } finally {
      await Promise.all([viaCollector.shutdown(), direct.shutdown()]);
      await otelcol.stop();
    }
  }, 120_000);

  it('a Collector with the wrong token in its headers gets nothing in: UNAUTHENTICATED, counted', async () => {
    const refusedBefore = await grpcCalls('unauthorized');
    const otelcol = await startCollector(collectorConfig(app.otlpGrpc!.port), { env: { RAGWATCH_TOKEN: 'not-the-token-0123456789' } });
    const exporter = new OTLPTraceExporter({ url: `http://127.0.0.1:${otelcol.ports.otlpGrpc}` });
    try {
      const spans = await ragSpans('Is this seen?', 'No.', 'No.');
      expect((await exported(exporter, spans)).code).toBe(ExportResultCode.SUCCESS);
      await waitFor(async () => (await grpcCalls('unauthorized')) > refusedBefore, 30_000);
      // UNAUTHENTICATED is permanent for the exporter: it drops the batch and says so.
      await waitFor(() => /Unauthenticated|UNAUTHENTICATED/.test(otelcol.output()), 30_000);
      await new Promise((r) => setTimeout(r, 1_000));
      const traceId = spans[0]!.spanContext().traceId;
      expect(scored.filter((s) => s.triplet.traceId === traceId)).toEqual([]);
    } finally {
      await exporter.shutdown();
      await otelcol.stop();
    }
  }, 90_000);
});

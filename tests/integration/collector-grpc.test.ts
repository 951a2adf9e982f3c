/**
 * A real OpenTelemetry Collector (scripts/collector, the project's own build) in front of `ragwatch
 * start`, configured as docs/ingest.md tells users: the service exports OTLP/gRPC to the Collector, whose
 * `otlp_grpc` exporter sends to ragwatch's OTLP/gRPC port with gzip and the bearer token in its
 * `headers`. A Python LangChain service under OpenInference (`opentelemetry-instrument`, gRPC by default;
 * tests/python) runs once through the Collector and once straight to ragwatch: every answered turn is
 * the same triplet with the same scores either way. The same holds for traces of the OpenTelemetry JS
 * SDK. A Collector with a wrong token gets nothing in (UNAUTHENTICATED, counted by ragwatch), so the
 * token really travels in `headers`.
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
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.ts';
import { checkCapture } from '../capture/helpers/python-capture.ts';
import { COMBINATIONS } from '../capture/helpers/python-combinations.ts';
import { haveCollector, startCollector } from '../helpers/otel-collector.ts';
import { metricValue, waitFor } from '../helpers/process.ts';
import { havePython, runPythonService, scenarioResponder } from '../helpers/python.ts';

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
const LANGCHAIN = COMBINATIONS.find((c) => c.id === 'langchain-openinference')!;
const python = ok && havePython('collector-grpc', [LANGCHAIN.env]);

describe.skipIf(!ok)('service → OpenTelemetry Collector (otlp_grpc, gzip, bearer in headers) → ragwatch start', () => {
  let app: RunningApp;
  let fake: FakeOpenAI;
  const env = { ...process.env };
  const scored: Array<{ record: ScoreRecord; triplet: SampledTriplet }> = [];

  beforeAll(async () => {
    // The service's exporters (to the Collector, and the twin straight to ragwatch) gzip as users set them to.
    process.env.OTEL_EXPORTER_OTLP_COMPRESSION = 'gzip';
    const config = loadConfig({ env: {}, overrides: { server: { otlpPort: 0, otlpGrpcPort: 0, httpPort: 0, bearerToken: TOKEN }, metrics: { processMetrics: false }, capture: { traceIdleMs: 300 } } });
    app = await startApp(config, silentLogger, { judge: new LexicalJudge() });
    app.pipeline.sinks.add({ onRecord: (record, triplet) => void (triplet && scored.push({ record, triplet })) });
    await waitFor(() => app.pipeline.ready, 30_000);
    fake = await startFakeOpenAI(scenarioResponder({ firstChunkDelayMs: 150 }));
  }, 60_000);

  afterAll(async () => {
    process.env = env;
    await fake?.close();
    await app?.shutdown();
  });

  /** What must not differ between the two paths: the triplet's content and the judge's verdict. */
  const same = (s: { record: ScoreRecord; triplet: SampledTriplet }) => ({
    query: s.triplet.query,
    sources: s.triplet.sources,
    response: s.triplet.response,
    route: s.triplet.route,
    model: s.triplet.model,
    convention: s.triplet.convention,
    history: s.triplet.conversation?.history,
    hasTtft: s.triplet.latency.ttftMs !== undefined,
    scores: s.record.scores,
    skipped: s.record.skipped,
  });

  it.skipIf(!python)('a Python LangChain service through the Collector: every turn captured and scored as without it', { timeout: 300_000 }, async () => {
    const otelcol = await startCollector(collectorConfig(app.otlpGrpc!.port), { env: { RAGWATCH_TOKEN: TOKEN } });
    try {
      const run = (serviceName: string, endpoint: string, extraEnv: Record<string, string>) =>
        runPythonService({ env: LANGCHAIN.env, service: LANGCHAIN.service, instrumentation: LANGCHAIN.kind, serviceName, otlp: { endpoint, protocol: 'grpc' }, openaiBaseUrl: fake.baseURL, sessionId: `${serviceName}-chat`, extraEnv: { ...LANGCHAIN.env_vars, ...extraEnv } });
      // opentelemetry-instrument's defaults (OTLP/gRPC); only the endpoint differs, and the token where ragwatch is reached directly.
      const through = await run('lc-via-collector', `http://127.0.0.1:${otelcol.ports.otlpGrpc}`, {});
      const direct = await run('lc-direct', `http://127.0.0.1:${app.otlpGrpc!.port}`, { OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer%20${TOKEN}`, OTEL_EXPORTER_OTLP_COMPRESSION: 'gzip' });
      for (const r of [through, direct]) expect(r.code, r.stderr.slice(-2000)).toBe(0);
      const of = (service: string) => scored.filter((s) => s.triplet.service === service);
      await waitFor(() => of('lc-via-collector').length >= through.reports.length && of('lc-direct').length >= direct.reports.length, 60_000);
      // Stragglers (a second triplet of a turn) would show here.
      await new Promise((r) => setTimeout(r, 1_500));
      const a = of('lc-via-collector');
      const b = of('lc-direct');
      expect(through.reports.map((r) => `${r.scenario}/${r.turn}`)).toEqual(['answer/1', 'stream/1', 'chat/1', 'chat/2']);
      const check = checkCapture(through.reports, a.map((s) => s.triplet), 150);
      expect(check.problems.filter((p) => !/^stream: TTFT/.test(p))).toEqual([]);
      expect(check.phantoms).toEqual([]);
      expect(check.capabilities).toMatchObject({ query: true, sources: true, response: true, conversationId: true, history: true });
      expect(a).toHaveLength(through.reports.length);
      expect(b).toHaveLength(direct.reports.length);
      const byQuestion = (list: typeof a) => new Map(list.map((s) => [`${s.triplet.query}|${s.triplet.conversation?.history?.length ?? 0}`, same(s)]));
      expect(byQuestion(a)).toEqual(byQuestion(b));
      // Both chat turns of the Collector path share one (pseudonymised) conversation id.
      const chat = a.filter((s) => s.triplet.conversation?.id !== undefined);
      expect(chat).toHaveLength(2);
      expect(new Set(chat.map((s) => s.triplet.conversation!.id)).size).toBe(1);
    } finally {
      await otelcol.stop();
    }
  });

  const grpcCalls = async (reason: string) => metricValue(await app.pipeline.instruments.registry.metrics(), 'ragwatch_ingest_requests_total', { transport: 'grpc', endpoint: '/v1/traces', reason }) ?? 0;

  it('JS SDK traces through the Collector: each the same triplet and scores as its twin sent without it', async () => {
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
      const mine = () => scored.filter((s) => s.triplet.service === 'rag-api');
      await waitFor(() => mine().length >= 2 * QUESTIONS.length, 60_000);
      const byTrace = new Map(scored.map((s) => [s.triplet.traceId, s]));
      for (const [i, pair] of pairs.entries()) {
        const through = byTrace.get(pair.collector);
        const twin = byTrace.get(pair.direct);
        expect(through, `trace ${pair.collector} through the Collector was scored`).toBeDefined();
        expect(same(through!)).toEqual(same(twin!));
        expect(through!.triplet).toMatchObject({ query: QUESTIONS[i]!.q, response: QUESTIONS[i]!.a, sources: [{ id: 'kb-1', content: QUESTIONS[i]!.doc }], service: 'rag-api', model: 'gpt-4o-mini' });
      }
      // Each trace once: no duplicate from the Collector's retries or batching.
      expect(mine()).toHaveLength(2 * QUESTIONS.length);
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

/**
 * The light plugin (issue 38): a `RagwatchSpanProcessor` with an endpoint configured forwards the
 * sampled triplets of its host's spans over HTTP to `ragwatch start`, which scores them — the same
 * triplet, judged there, nothing judged in the host; both sides keep the accounting identity
 * (produced in the host, received there); a wrong token is refused (401) and the batch dropped and
 * counted; the receiver scores a batch's valid triplets and names the first invalid one; a 503 is
 * retried after Retry-After; and without an endpoint the host is told, once, what
 * judging in process costs it.
 */
import { diag, DiagLogLevel, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { SimpleSpanProcessor, InMemorySpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { accountingSnapshot } from '../../src/metrics/accounting.ts';
import { ForwardingPipeline } from '../../src/roles/forwarding-pipeline.ts';
import { LazyPipeline } from '../../src/roles/lazy-pipeline.ts';
import { RagwatchSpanProcessor } from '../../src/roles/span-processor.ts';
import { startApp, type RunningApp } from '../../src/roles/start.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';
import { LexicalJudge } from '../helpers/lexical-judge.ts';
import { metricValue, waitFor } from '../helpers/process.ts';

const TOKEN = 'forwarding-plugin-token-0123456789';

/** One RAG request made with the host's tracer. */
function request(provider: TracerProvider, i: number): void {
  const tracer = provider.getTracer('host-app');
  const root = tracer.startSpan('rag-request', { attributes: { 'openinference.span.kind': 'CHAIN' } });
  const ctx = trace.setSpan(ROOT_CONTEXT, root);
  tracer.startSpan('retrieve', { attributes: { 'openinference.span.kind': 'RETRIEVER', 'input.value': `What is item ${i}?`, 'retrieval.documents.0.document.content': `Item ${i} is a red ball made in 2020.` } }, ctx).end();
  tracer.startSpan('llm', { attributes: { 'openinference.span.kind': 'LLM', 'llm.model_name': 'gpt-4o-mini', 'llm.input_messages.0.message.role': 'user', 'llm.input_messages.0.message.content': `What is item ${i}?`, 'llm.output_messages.0.message.role': 'assistant', 'llm.output_messages.0.message.content': `Item ${i} is a red ball.` } }, ctx).end();
  root.end();
}

describe('the plugin forwarding to ragwatch start', () => {
  let app: RunningApp;
  const scored: Array<{ record: ScoreRecord; triplet: SampledTriplet }> = [];

  beforeAll(async () => {
    const config = loadConfig({ env: {}, overrides: { server: { otlpPort: 0, otlpGrpcPort: 0, httpPort: 0, bearerToken: TOKEN }, metrics: { processMetrics: false } } });
    app = await startApp(config, silentLogger, { judge: new LexicalJudge() });
    app.pipeline.sinks.add({ onRecord: (record, triplet) => void (triplet && scored.push({ record, triplet })) });
    await waitFor(() => app.pipeline.ready, 30_000);
  });
  afterAll(() => app?.shutdown());

  it('captures in the host, scores in ragwatch start: the same triplet, the identity balanced on both sides', async () => {
    const processor = new RagwatchSpanProcessor({ config: { capture: { traceIdleMs: 50 }, metrics: { processMetrics: false }, transport: { http: { endpoint: `http://127.0.0.1:${app.otlp.port}`, bearerToken: TOKEN, lingerMs: 50 } } }, scheduledDelayMillis: 20 });
    expect(processor.pipeline).toBeInstanceOf(ForwardingPipeline);
    const provider = new TracerProvider({ spanProcessors: [processor, new SimpleSpanProcessor({ exporter: new InMemorySpanExporter() })] });
    for (let i = 0; i < 3; i++) request(provider, i);
    await processor.forceFlush();
    await waitFor(() => scored.length >= 3, 15_000);
    expect(scored.map((s) => s.triplet.query).sort()).toEqual(['What is item 0?', 'What is item 1?', 'What is item 2?']);
    expect(scored[0]!.triplet).toMatchObject({ service: expect.stringMatching(/^unknown_service/), convention: 'openinference', sampling: { weight: 1 } });
    expect(scored[0]!.record.scores.groundedness).toBeDefined();
    const host = await accountingSnapshot(processor.pipeline.instruments.registry);
    expect(host).toMatchObject({ captured: 3, sampled: 3, scored: 0, inTopic: 3, residualCaptured: 0, residualSampled: 0 });
    const there = await accountingSnapshot(app.pipeline.instruments.registry);
    expect(there.residualSampled).toBe(0);
    expect(metricValue(await app.pipeline.instruments.registry.metrics(), 'ragwatch_ingest_requests_total', { endpoint: '/v1/ragwatch/triplets', reason: 'ok' })).toBeGreaterThanOrEqual(1);
    await provider.shutdown();
  });

  it('a wrong token: 401, the batch dropped and counted, nothing scored, the host told through its diag logger', async () => {
    const before = scored.length;
    const warnings: string[] = [];
    const quiet = () => undefined;
    diag.setLogger({ warn: (m: string) => void warnings.push(m), error: quiet, info: quiet, debug: quiet, verbose: quiet }, DiagLogLevel.WARN);
    const processor = new RagwatchSpanProcessor({ config: { capture: { traceIdleMs: 50 }, metrics: { processMetrics: false }, transport: { http: { endpoint: `http://127.0.0.1:${app.otlp.port}`, bearerToken: 'not-the-right-token-at-all', lingerMs: 50 } } }, scheduledDelayMillis: 20 });
    const provider = new TracerProvider({ spanProcessors: [processor] });
    request(provider, 9);
    await processor.forceFlush();
    const text = await processor.pipeline.instruments.registry.metrics();
    expect(metricValue(text, 'ragwatch_dropped_total', { stage: 'transport', reason: 'rejected_401' })).toBe(1);
    expect((await accountingSnapshot(processor.pipeline.instruments.registry)).residualSampled).toBe(0);
    expect(scored.length).toBe(before);
    diag.disable();
    expect(warnings.filter((w) => w.includes('refused 1 triplets with 401'))).toHaveLength(1);
    await provider.shutdown();
  });

  it('the receiver scores the valid triplets of a batch and names the first invalid one', async () => {
    const before = scored.length;
    const good = { ...scored[0]!.triplet, id: 'forwarded-good' };
    const res = await fetch(`http://127.0.0.1:${app.otlp.port}/v1/ragwatch/triplets`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ triplets: [good, { ...good, id: 'forwarded-bad', sampling: undefined }] }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ accepted: 1, rejected: 1, errorMessage: expect.stringContaining('key "sampling"') });
    await waitFor(() => scored.length > before, 10_000);
    expect(scored.slice(before).map((s) => s.triplet.id)).toEqual(['forwarded-good']);
    const bad = await fetch(`http://127.0.0.1:${app.otlp.port}/v1/ragwatch/triplets`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` }, body: '{"spans": []}' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: 'body must be {"triplets": [...]}' });
  });
});

describe('the forwarding transport', () => {
  it('waits out a 503 with Retry-After and delivers on the retry', async () => {
    const statuses = [503, 200];
    const got: number[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const status = statuses.shift() ?? 200;
        if (status === 200) got.push((JSON.parse(body) as { triplets: unknown[] }).triplets.length);
        res.writeHead(status, status === 503 ? { 'Retry-After': '1' } : {}).end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const config = loadConfig({ env: {}, overrides: { capture: { traceIdleMs: 50 }, metrics: { processMetrics: false }, transport: { http: { endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`, lingerMs: 50 } } } });
    const pipeline = new ForwardingPipeline(config);
    const processor = new RagwatchSpanProcessor({ pipeline, scheduledDelayMillis: 20 });
    const provider = new TracerProvider({ spanProcessors: [processor] });
    request(provider, 1);
    const t0 = Date.now();
    await processor.forceFlush();
    expect(got).toEqual([1]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    expect(metricValue(await pipeline.instruments.registry.metrics(), 'ragwatch_triplets_produced_total')).toBe(1);
    await provider.shutdown();
    await pipeline.shutdown();
    await new Promise((r) => server.close(r));
  });

  it('without an endpoint the plugin loads the full pipeline and says what judging in the host costs', async () => {
    const warnings: Array<{ name: string; message: string }> = [];
    const listener = (w: Error) => void warnings.push({ name: w.name, message: w.message });
    process.on('warning', listener);
    const processor = new RagwatchSpanProcessor({ config: { metrics: { processMetrics: false }, judge: { kind: 'llm', apiKey: 'k', baseUrl: 'http://127.0.0.1:9/v1' } } });
    await new Promise((r) => setImmediate(r));
    process.off('warning', listener);
    expect(processor.pipeline).toBeInstanceOf(LazyPipeline);
    expect(warnings).toContainEqual({ name: 'RagwatchNotice', message: expect.stringContaining('Set RAGWATCH_ENDPOINT') });
    await processor.shutdown();
  });
});

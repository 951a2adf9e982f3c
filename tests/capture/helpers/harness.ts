/**
 * Test harness for the capture stage driven by real instrumentation libraries: a real NodeSDK with
 * in-memory exporters (to replay the same spans over OTLP) plus RagwatchSpanProcessor and
 * RagwatchLogRecordProcessor feeding a Pipeline whose judge is a cheap stub (scoring is not what
 * these tests check). Outcomes are collected through `onOutcome`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { trace } from '@opentelemetry/api';
import { expect } from 'vitest';
import type { Instrumentation } from '@opentelemetry/instrumentation';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { InMemoryLogRecordExporter, SimpleLogRecordProcessor, type ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { JsonLogsSerializer, JsonTraceSerializer, ProtobufLogsSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { Capture } from '../../../src/capture/capture.ts';
import { RagwatchLogRecordProcessor } from '../../../src/roles/log-processor.ts';
import { RagwatchSpanProcessor } from '../../../src/roles/span-processor.ts';
import type { GenerationOutcome } from '../../../src/capture/types.ts';
import { loadConfig } from '../../../src/config/load.ts';
import type { RagwatchConfig } from '../../../src/config/schema.ts';
import type { Judge } from '../../../src/judges/types.ts';
import { createInstruments, type Instruments } from '../../../src/telemetry/instruments.ts';
import { Pipeline } from '../../../src/roles/pipeline.ts';
import { createIngestApp } from '../../../src/server/ingest-app.ts';
import type { Source, Triplet } from '../../../src/triplet.ts';

/** The RAG request every library test sends. */
export const RAG = {
  query: 'When was the Chimnabai Clock Tower completed?',
  docs: [
    { id: 'doc-1', score: 0.91, content: 'The Chimnabai Clock Tower is a clock tower in Vadodara, Gujarat. It was completed in 1896.' },
    { id: 'doc-2', score: 0.42, content: 'It was inaugurated by Mir Kamaluddin Hussainkhan, the last Nawab of Baroda.' },
  ],
  answer: 'The Chimnabai Clock Tower was completed in 1896.',
  /** Delay of the fake server before the first SSE chunk, ms. */
  firstChunkDelayMs: 300,
  outputTokens: 9,
};

/** The fake's streamed reply for {@link RAG}. */
export const RAG_REPLY = { content: RAG.answer, firstChunkDelayMs: RAG.firstChunkDelayMs, chunks: 4, chunkDelayMs: 10, completionTokens: RAG.outputTokens };

/** Context block as apps put it in prompts. */
export function contextBlock(): string {
  return RAG.docs.map((d) => `[${d.id}] ${d.content}`).join('\n');
}

/** A judge that scores nothing (capture tests do not test scoring). */
export function stubJudge(): Judge {
  return {
    kind: 'embedded',
    ready: true,
    init: () => Promise.resolve(),
    score: () => Promise.resolve({ ok: true, scores: {}, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 } }),
    shutdown: () => Promise.resolve(),
  };
}

/**
 * Test configuration: embedded defaults plus overrides. Traces are assembled by `flush()`, not by
 * idle time, so a loaded CI machine cannot split a request between two idle sweeps.
 */
export function testConfig(overrides: Record<string, unknown> = {}): RagwatchConfig {
  const capture = { traceIdleMs: 20_000, traceMaxAgeMs: 60_000, ...(overrides['capture'] as Record<string, unknown> | undefined) };
  return loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, ...overrides, capture } });
}

export interface Harness {
  outcomes: GenerationOutcome[];
  pipeline: Pipeline;
  spanProcessor: RagwatchSpanProcessor;
  logProcessor: RagwatchLogRecordProcessor;
  spans: InMemorySpanExporter;
  logs: InMemoryLogRecordExporter;
  sdk: NodeSDK | undefined;
  /** Hands buffered logs then spans to capture and assembles every buffered trace. */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** Starts the pipeline and processors; with `sdk: false` the caller registers the processors itself (Traceloop). */
export function startHarness(options: { instrumentations?: Instrumentation[]; config?: Record<string, unknown>; sdk?: boolean } = {}): Harness {
  const outcomes: GenerationOutcome[] = [];
  const pipeline = new Pipeline({ config: testConfig(options.config), judge: stubJudge(), onOutcome: (o) => outcomes.push(o) });
  const spanProcessor = new RagwatchSpanProcessor({ pipeline, scheduledDelayMillis: 50 });
  const logProcessor = new RagwatchLogRecordProcessor({ spanProcessor, scheduledDelayMillis: 50 });
  const spans = new InMemorySpanExporter();
  const logs = new InMemoryLogRecordExporter();
  let sdk: NodeSDK | undefined;
  if (options.sdk !== false) {
    sdk = new NodeSDK({
      serviceName: 'rag-app',
      spanProcessors: [new SimpleSpanProcessor({ exporter: spans }), spanProcessor],
      logRecordProcessors: [new SimpleLogRecordProcessor({ exporter: logs }), logProcessor],
      instrumentations: options.instrumentations ?? [],
      spanLimits: { attributeCountLimit: 512 },
      // No metrics pipeline: otherwise NodeSDK exports the instrumentations' metrics over OTLP from the environment.
      metricReaders: [],
    });
    sdk.start();
  }
  return {
    outcomes,
    pipeline,
    spanProcessor,
    logProcessor,
    spans,
    logs,
    sdk,
    async flush() {
      // Let the in-memory exporters' SimpleProcessors finish their (async) exports too.
      const provider = trace.getTracerProvider() as { getDelegate?: () => { forceFlush?: () => Promise<void> } };
      await provider.getDelegate?.().forceFlush?.();
      await logProcessor.forceFlush();
      await spanProcessor.forceFlush();
    },
    async shutdown() {
      await sdk?.shutdown().catch(() => undefined);
      await logProcessor.shutdown();
      await spanProcessor.shutdown();
      await pipeline.shutdown(1000);
    },
  };
}

/** Replays SDK spans (and log records) through the real OTLP ingest app into a fresh capture stage. */
export async function replayOtlp(spans: ReadableSpan[], logs: ReadableLogRecord[], encoding: 'json' | 'protobuf', config: Record<string, unknown> = {}): Promise<{ outcomes: GenerationOutcome[]; instruments: Instruments }> {
  const outcomes: GenerationOutcome[] = [];
  const instruments = createInstruments({ processMetrics: false });
  const capture = new Capture({ config: testConfig(config).capture, instruments, onTriplet: () => undefined, onOutcome: (o) => outcomes.push(o) });
  const app = createIngestApp({ onSpans: (s) => capture.addSpans(s, 'otlp'), onLogs: (l) => capture.addLogs(l, 'otlp') });
  const contentType = encoding === 'json' ? 'application/json' : 'application/x-protobuf';
  const traceBody = encoding === 'json' ? JsonTraceSerializer.serializeRequest(spans) : ProtobufTraceSerializer.serializeRequest(spans);
  const res = await app.request('/v1/traces', { method: 'POST', headers: { 'content-type': contentType }, body: Buffer.from(traceBody!) });
  expect(res.status).toBe(200);
  if (logs.length > 0) {
    const logBody = encoding === 'json' ? JsonLogsSerializer.serializeRequest(logs) : ProtobufLogsSerializer.serializeRequest(logs);
    const logRes = await app.request('/v1/logs', { method: 'POST', headers: { 'content-type': contentType }, body: Buffer.from(logBody!) });
    expect(logRes.status).toBe(200);
  }
  await capture.shutdown();
  return { outcomes, instruments };
}

/**
 * Writes the spans (and logs) as OTLP/JSON fixtures under tests/fixtures/otlp/ when
 * RAGWATCH_WRITE_FIXTURES=1 (the fixtures `ragwatch extract` tests and docs/capture.md use).
 */
export function maybeWriteFixture(name: string, spans: ReadableSpan[], logs: ReadableLogRecord[] = []): void {
  if (process.env.RAGWATCH_WRITE_FIXTURES !== '1') return;
  const dir = new URL('../../fixtures/otlp/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  const pretty = (bytes: Uint8Array | undefined) => `${JSON.stringify(JSON.parse(Buffer.from(bytes!).toString('utf8')), null, 1)}\n`;
  writeFileSync(new URL(`${name}.traces.json`, dir), pretty(JsonTraceSerializer.serializeRequest(spans)));
  if (logs.length > 0) writeFileSync(new URL(`${name}.logs.json`, dir), pretty(JsonLogsSerializer.serializeRequest(logs)));
}

/** The triplets among outcomes. */
export function triplets(outcomes: readonly GenerationOutcome[]): Triplet[] {
  return outcomes.flatMap((o) => (o.kind === 'triplet' ? [o.triplet] : []));
}

/** Asserts the RAG triplet: exact query, sources (content, and ids/scores when `withIds`), exact response. */
export function expectRagTriplet(t: Triplet | undefined, expected: { convention: string; sources?: Source[]; query?: string }): Triplet {
  expect(t).toBeDefined();
  expect(t!.convention).toBe(expected.convention);
  expect(t!.query).toBe(expected.query ?? RAG.query);
  expect(t!.sources).toEqual(expected.sources ?? RAG.docs.map((d) => ({ id: d.id, score: d.score, content: d.content })));
  expect(t!.response).toBe(RAG.answer);
  return t!;
}

/** TTFT measured by a library lies between the fake's delay and the delay plus client overhead. */
export function expectTtft(t: Triplet, toleranceMs = 350): void {
  expect(t.latency.ttftMs).toBeDefined();
  expect(t.latency.ttftMs!).toBeGreaterThanOrEqual(RAG.firstChunkDelayMs - 5);
  expect(t.latency.ttftMs!).toBeLessThan(RAG.firstChunkDelayMs + toleranceMs);
}

/** `ragwatch_capture_ignored_spans_total` by operation (model calls that are not generations). */
export async function ignoredSpans(instruments: Instruments): Promise<Record<string, number>> {
  const metric = await instruments.registry.getSingleMetric('ragwatch_capture_ignored_spans_total')!.get();
  return Object.fromEntries(metric.values.map((v) => [String(v.labels.operation), v.value]));
}

/** An embeddings request as RAG apps send one to embed the query before retrieval. */
export const EMBED_REQUEST = { model: 'text-embedding-3-small', input: RAG.query };

/**
 * A host service for bench/plugin-rss.ts (run as its own process): a NodeSDK with a batch span
 * processor and, per mode, ragwatch's span processor from `ragwatch/plugin` (the built package):
 * `none` (the baseline), `forward` (to the endpoint in RAGWATCH_ENDPOINT), `inprocess` (the embedded
 * judge in the host, one worker thread) or `kafka` (brokers in RAGWATCH_KAFKA_BROKERS); `forward-main`
 * forwards like `forward` with the processor imported from the main entry (`ragwatch`). It makes 20
 * RAG traces, flushes, lets the process settle and prints its RSS in MB as one JSON line.
 */
import { trace } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor, InMemorySpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace';

import type * as Plugin from '../src/plugin.ts';

const mode = process.argv[2] ?? 'none';
const spanProcessors: SpanProcessor[] = [new BatchSpanProcessor({ exporter: new InMemorySpanExporter() })];
let ragwatch: { forceFlush(): Promise<void>; shutdown(): Promise<void> } | undefined;
if (mode !== 'none') {
  // What an editor's auto-import writes (`from 'ragwatch'`) must cost no more than the plugin entry.
  const entry = mode === 'forward-main' ? '../dist/index.js' : '../dist/plugin.js';
  const { RagwatchSpanProcessor } = (await import(new URL(entry, import.meta.url).href)) as typeof Plugin;
  const transport = mode === 'forward' || mode === 'forward-main' ? { http: { endpoint: process.env.RAGWATCH_ENDPOINT!, lingerMs: 100 } } : mode === 'kafka' ? { kind: 'kafka' as const, kafka: { brokers: process.env.RAGWATCH_KAFKA_BROKERS!.split(',') } } : {};
  const processor = new RagwatchSpanProcessor({ config: { capture: { traceIdleMs: 100 }, metrics: { processMetrics: false }, transport } });
  ragwatch = processor;
  spanProcessors.push(processor as unknown as SpanProcessor);
}
const sdk = new NodeSDK({ serviceName: 'bench-host', spanProcessors, instrumentations: [] });
sdk.start();
const tracer = trace.getTracer('bench-host');
for (let i = 0; i < 20; i++) {
  await tracer.startActiveSpan('rag.request', { attributes: { 'openinference.span.kind': 'CHAIN' } }, async (root) => {
    tracer.startSpan('retrieve', { attributes: { 'openinference.span.kind': 'RETRIEVER', 'input.value': `What is item ${i}?`, 'retrieval.documents.0.document.content': `Item ${i} is a red ball made in 2020 in Lyon.` } }).end();
    tracer.startSpan('llm', { attributes: { 'openinference.span.kind': 'LLM', 'llm.model_name': 'gpt-4o-mini', 'llm.input_messages.0.message.role': 'user', 'llm.input_messages.0.message.content': `What is item ${i}?`, 'llm.output_messages.0.message.role': 'assistant', 'llm.output_messages.0.message.content': `Item ${i} is a red ball.` } }).end();
    root.end();
  });
}
await ragwatch?.forceFlush();
await new Promise((r) => setTimeout(r, 1_500));
(globalThis as { gc?: () => void }).gc?.();
await new Promise((r) => setTimeout(r, 500));
process.stdout.write(`${JSON.stringify({ mode, rssMb: process.memoryUsage().rss / 1e6 })}\n`);
await sdk.shutdown();
process.exit(0);

/**
 * Library mode with Kafka: `RagwatchSpanProcessor` configured with `transport.kind: kafka` runs
 * the collector role inside the host — spans from a real OTel SDK become sampled triplets on the
 * triplets topic of the librdkafka mock cluster, and nothing is judged in-process.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { LazyPipeline } from '../../src/roles/lazy-pipeline.ts';
import { RagwatchSpanProcessor } from '../../src/roles/span-processor.ts';
import { sampledTripletSchema, SCHEMA_VERSION } from '../../src/triplet.ts';
import { haveKafka, startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-broker.ts';
import { readTopic, type TopicReader } from '../integration/kafka-process.ts';
import { waitFor } from '../helpers/process.ts';

const enabled = haveKafka('tests/transport/span-processor-kafka.integration.test.ts');

describe.skipIf(!enabled)('RagwatchSpanProcessor producing to Kafka', () => {
  let broker: KafkaTestCluster;
  let reader: TopicReader | undefined;
  let processor: RagwatchSpanProcessor | undefined;

  beforeAll(async () => {
    broker = await startKafkaCluster();
  }, 180_000);
  afterAll(async () => {
    await processor?.shutdown();
    await reader?.stop();
    await broker?.stop();
  });

  it('sends the sampled triplets of the host spans to the triplets topic', async () => {
    const topic = `plugin-${randomUUID().slice(0, 8)}.triplets.v1`;
    processor = new RagwatchSpanProcessor({
      config: { capture: { traceIdleMs: 100 }, metrics: { processMetrics: false }, transport: { kind: 'kafka', kafka: { brokers: broker.brokers, topics: { triplets: topic } } } },
      scheduledDelayMillis: 50,
    });
    // The full pipeline loads on first use (only a forwarding plugin skips it): a collector, judging nothing here.
    expect((await (processor.pipeline as LazyPipeline).loaded())?.role).toBe('collector');
    const provider = new TracerProvider({ spanProcessors: [processor, new SimpleSpanProcessor({ exporter: new InMemorySpanExporter() })] });
    const tracer = provider.getTracer('host-app');
    const traceIds: string[] = [];
    for (let i = 0; i < 5; i++) {
      const root = tracer.startSpan('rag-request');
      const ctx = trace.setSpan(ROOT_CONTEXT, root);
      const retriever = tracer.startSpan('retrieve', { attributes: { 'openinference.span.kind': 'RETRIEVER', 'input.value': `What is item ${i}?`, 'retrieval.documents.0.document.content': `Item ${i} is a red ball.` } }, ctx);
      retriever.end();
      const llm = tracer.startSpan(
        'ChatCompletion',
        {
          attributes: {
            'openinference.span.kind': 'LLM',
            'llm.model_name': 'gpt-4o-mini',
            'llm.input_messages.0.message.role': 'user',
            'llm.input_messages.0.message.content': `What is item ${i}?`,
            'llm.output_messages.0.message.role': 'assistant',
            'llm.output_messages.0.message.content': `Item ${i} is a red ball.`,
          },
        },
        ctx,
      );
      llm.end();
      root.end();
      traceIds.push(root.spanContext().traceId);
    }
    await processor.forceFlush();
    reader = await readTopic(broker.brokers, topic);
    await waitFor(() => reader!.messages.length >= 5, 20_000, 100);
    const triplets = reader.messages.map((m) => sampledTripletSchema.parse(JSON.parse(String(m.value))));
    expect(triplets.map((t) => t.traceId).sort()).toEqual([...traceIds].sort());
    expect(reader.messages.every((m) => String(m.headers?.['schema-version']) === SCHEMA_VERSION)).toBe(true);
    const metrics = await processor.pipeline.instruments.registry.metrics();
    expect(metrics).toMatch(/ragwatch_triplets_produced_total 5/);
    expect(metrics).not.toMatch(/ragwatch_triplets_scored_total\{[^}]*\} [1-9]/);
  });
});

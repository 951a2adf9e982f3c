/**
 * Issue 2 acceptance: the same capture → score path in-process, through RagwatchSpanProcessor
 * inside a real NodeSDK. Spans are made with the real OTel tracer carrying OpenInference attributes.
 */
import { trace } from '@opentelemetry/api';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RagwatchSpanProcessor } from '../../src/index.ts';
import { CLOCK_TOWER } from '../helpers/otlp.ts';
import { metricValue } from '../helpers/process.ts';

describe('RagwatchSpanProcessor in a real NodeSDK', () => {
  let sdk: NodeSDK;
  let processor: RagwatchSpanProcessor;

  beforeAll(() => {
    processor = new RagwatchSpanProcessor({ config: { capture: { traceIdleMs: 100 } } });
    sdk = new NodeSDK({ serviceName: 'rag-inproc', spanProcessors: [processor], instrumentations: [] });
    sdk.start();
  });

  afterAll(async () => {
    await sdk.shutdown();
  });

  it('captures and scores a RAG request made with the host tracer', async () => {
    const tracer = trace.getTracer('rag-app');
    await tracer.startActiveSpan('rag.request', { attributes: { 'openinference.span.kind': 'CHAIN', 'input.value': CLOCK_TOWER.query } }, async (root) => {
      const retriever = tracer.startSpan('retrieve', { attributes: { 'openinference.span.kind': 'RETRIEVER', 'input.value': CLOCK_TOWER.query } });
      CLOCK_TOWER.documents.forEach((d, i) => {
        retriever.setAttribute(`retrieval.documents.${i}.document.content`, d.content);
        retriever.setAttribute(`retrieval.documents.${i}.document.id`, d.id!);
        retriever.setAttribute(`retrieval.documents.${i}.document.score`, d.score!);
      });
      retriever.end();
      const llm = tracer.startSpan('ChatCompletion', {
        attributes: {
          'openinference.span.kind': 'LLM',
          'llm.model_name': 'gpt-4o-mini',
          'llm.input_messages.0.message.role': 'user',
          'llm.input_messages.0.message.content': CLOCK_TOWER.query,
          'llm.output_messages.0.message.role': 'assistant',
          'llm.output_messages.0.message.content': CLOCK_TOWER.response,
        },
      });
      await new Promise((r) => setTimeout(r, 20));
      llm.addEvent('First Token Stream Event');
      llm.end();
      root.end();
    });

    await processor.forceFlush();
    const text = await processor.pipeline.instruments.registry.metrics();
    expect(metricValue(text, 'ragwatch_spans_received_total', { source: 'processor' })).toBe(3);
    expect(metricValue(text, 'ragwatch_triplets_captured_total', { convention: 'openinference' })).toBe(1);
    expect(metricValue(text, 'ragwatch_score_ratio_count', { metric: 'response_self_distinctness', judge: 'embedded', service: 'rag-inproc' })).toBe(1);
    expect(metricValue(text, 'ragwatch_score_ratio_sum', { metric: 'response_self_distinctness', judge: 'embedded', service: 'rag-inproc' })).toBeCloseTo(1 / 3, 5);
    const ttft = metricValue(text, 'ragwatch_time_to_first_token_seconds_sum', { service: 'rag-inproc' });
    expect(ttft).toBeGreaterThanOrEqual(0.015);
    expect(ttft).toBeLessThan(1);
  });

  it('onEnd never throws, even for a span whose getters throw', () => {
    const hostile = {
      get name(): string {
        throw new Error('boom');
      },
      spanContext() {
        throw new Error('boom');
      },
    };
    expect(() => processor.onEnd(hostile as never)).not.toThrow();
    expect(() => processor.forceFlush()).not.toThrow();
  });
});

/**
 * OTel GenAI convention, driven by the real `@opentelemetry/instrumentation-openai` (content as log
 * records) against the fake OpenAI server, with the app's `retrieval` span per the GenAI semconv.
 */
import { createRequire } from 'node:module';
import { SpanKind, trace } from '@opentelemetry/api';
import { OpenAIInstrumentation } from '@opentelemetry/instrumentation-openai';
import type * as OpenAIv6 from 'openai-v6';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.ts';
import { contextBlock, EMBED_REQUEST, expectRagTriplet, ignoredSpans, type Harness, maybeWriteFixture, RAG, RAG_REPLY, replayOtlp, startHarness, triplets } from '../helpers/harness.ts';

// The instrumentation patches openai < 7 only; ragwatch itself uses openai 7 (alias devDependency).
const require = createRequire(import.meta.url);
const openaiV6 = require('openai-v6') as typeof OpenAIv6;

let fake: FakeOpenAI;
let h: Harness;

async function ragRequest(withRetrieval: boolean): Promise<void> {
  const tracer = trace.getTracer('rag-app');
  const client = new openaiV6.OpenAI({ baseURL: fake.baseURL, apiKey: 'test' });
  await tracer.startActiveSpan('POST /ask', async (root) => {
    if (withRetrieval) {
      // The query is embedded before retrieval (gen_ai.operation.name = embeddings): never a triplet.
      await client.embeddings.create(EMBED_REQUEST);
      tracer
        .startSpan('retrieval docs', {
          kind: SpanKind.CLIENT,
          attributes: {
            'gen_ai.operation.name': 'retrieval',
            'gen_ai.data_source.id': 'docs',
            'gen_ai.retrieval.query.text': RAG.query,
            'gen_ai.retrieval.documents': JSON.stringify(RAG.docs),
          },
        })
        .end();
    }
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: `Answer only from the context.\n${contextBlock()}` },
        { role: 'user', content: RAG.query },
      ],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe(RAG.answer);
    root.end();
  });
}

beforeAll(async () => {
  process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT = 'true';
  fake = await startFakeOpenAI(() => RAG_REPLY);
  const instrumentation = new OpenAIInstrumentation();
  h = startHarness({ instrumentations: [instrumentation] });
  // The module is loaded under its alias name, which the require hook does not match: patch it explicitly.
  for (const def of instrumentation.getModuleDefinitions()) def.patch?.(openaiV6, '6.30.1');
  await ragRequest(true);
  await ragRequest(false);
  await h.flush();
  maybeWriteFixture('genai', h.spans.getFinishedSpans(), h.logs.getFinishedLogRecords());
});

afterAll(async () => {
  await h.shutdown();
  await fake.close();
});

describe('genai mapper on @opentelemetry/instrumentation-openai', () => {
  it('in-process: joins content log records and the retrieval span into the exact triplet', () => {
    const [t] = triplets(h.outcomes);
    expectRagTriplet(t, { convention: 'genai' });
    expect(t!.model).toBe('gpt-4o-mini');
    expect(t!.latency.outputTokens).toBe(RAG.outputTokens);
    // The instrumentation records no first-chunk time: TTFT stays unknown rather than guessed.
    expect(t!.latency.ttftMs).toBeUndefined();
    expect(t!.latency.durationMs).toBeGreaterThanOrEqual(RAG.firstChunkDelayMs - 5);
  });

  it('a generation without a retrieval span is incomplete{sources}, never emitted', () => {
    const incomplete = h.outcomes.filter((o) => o.kind === 'incomplete');
    expect(incomplete).toHaveLength(1);
    expect(incomplete[0]).toMatchObject({ kind: 'incomplete', mapper: 'genai', missing: ['sources'] });
    expect(h.outcomes).toHaveLength(2);
  });

  it('records latency histograms for every captured generation, and the capture counters', async () => {
    const metric = (name: string) => h.pipeline.instruments.registry.getSingleMetricAsString(name);
    expect(await metric('ragwatch_response_duration_seconds')).toMatch(/ragwatch_response_duration_seconds_count\{service="rag-app",model="gpt-4o-mini"\} 1/);
    expect(await metric('ragwatch_generations_seen_total')).toMatch(/\{convention="genai"\} 2/);
    expect(await metric('ragwatch_triplets_captured_total')).toMatch(/\{convention="genai"\} 1/);
    expect(await metric('ragwatch_triplets_incomplete_total')).toMatch(/\{missing="sources"\} 1/);
    expect(await metric('ragwatch_spans_received_total')).toMatch(/\{source="processor"\} 6/);
    expect(await ignoredSpans(h.pipeline.instruments)).toEqual({ embedding: 1 });
    expect(await metric('ragwatch_logs_received_total')).toMatch(/\{source="processor"\} 6/);
  });

  for (const encoding of ['json', 'protobuf'] as const) {
    it(`sidecar: the same spans and logs through /v1/traces + /v1/logs (${encoding}) give the same triplet`, async () => {
      const { outcomes } = await replayOtlp(h.spans.getFinishedSpans(), h.logs.getFinishedLogRecords(), encoding);
      const [t] = triplets(outcomes);
      expectRagTriplet(t, { convention: 'genai' });
      expect(t!.id).toBe(triplets(h.outcomes)[0]!.id);
      expect(outcomes.filter((o) => o.kind === 'incomplete')).toHaveLength(1);
    });
  }

  it('without the log records (traces only), the generation is incomplete{query… response}', async () => {
    const { outcomes } = await replayOtlp(h.spans.getFinishedSpans(), [], 'json');
    const withRetrieval = outcomes.find((o) => o.kind === 'incomplete' && !o.missing.includes('sources'));
    expect(withRetrieval).toMatchObject({ missing: ['response'] });
  });
});

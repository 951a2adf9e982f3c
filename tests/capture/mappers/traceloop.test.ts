/**
 * OpenLLMetry / Traceloop convention, driven by the real `@traceloop/node-server-sdk` (its own
 * NodeSDK, `@traceloop/instrumentation-openai`, `withWorkflow`/`withTask`) against the fake server.
 * RagwatchSpanProcessor is registered through the SDK's `processor` option.
 */
import { createRequire } from 'node:module';
import * as traceloop from '@traceloop/node-server-sdk';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import type * as OpenAIv6 from 'openai-v6';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.ts';
import { contextBlock, expectRagTriplet, type Harness, maybeWriteFixture, RAG, RAG_REPLY, replayOtlp, startHarness, triplets } from '../helpers/harness.ts';

// @traceloop/instrumentation-openai patches openai < 7 only (alias devDependency).
const require = createRequire(import.meta.url);
const openaiV6 = require('openai-v6') as typeof OpenAIv6;

let fake: FakeOpenAI;
let h: Harness;
const exported = new InMemorySpanExporter();

beforeAll(async () => {
  fake = await startFakeOpenAI(() => RAG_REPLY);
  h = startHarness({ sdk: false });
  traceloop.initialize({
    appName: 'rag-app',
    disableBatch: true,
    silenceInitializationMessage: true,
    traceloopSyncEnabled: false,
    // exporter: where Traceloop's own processor sends spans (kept for the OTLP replay); processor: added next to it.
    exporter: exported as never,
    processor: h.spanProcessor as never,
    instrumentModules: { openAI: openaiV6.OpenAI as never },
  });
  const client = new openaiV6.OpenAI({ baseURL: fake.baseURL, apiKey: 'test' });
  const answer = await traceloop.withWorkflow({ name: 'rag' }, async () => {
    const docs = (await traceloop.withTask({ name: 'retrieve_documents' }, (q: string) => Promise.resolve(q === RAG.query ? RAG.docs : []), RAG.query)) as typeof RAG.docs;
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: `Answer only from the context.\n${docs.map((d) => d.content).join('\n')}` },
        { role: 'user', content: RAG.query },
      ],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    return text;
  });
  expect(answer).toBe(RAG.answer);
  expect(contextBlock()).toContain(RAG.docs[0]!.content);
  // The LLM span ends after the stream is consumed (the instrumentation counts tokens first).
  await vi.waitFor(() => expect(exported.getFinishedSpans()).toHaveLength(3), { timeout: 15_000, interval: 50 });
  await traceloop.forceFlush();
  await h.flush();
  maybeWriteFixture('traceloop', exported.getFinishedSpans() as never);
});

afterAll(async () => {
  await h.shutdown();
  await fake.close();
});

describe('traceloop mapper on @traceloop/node-server-sdk', () => {
  it('in-process: the LLM span joins the retrieve task (traceloop.entity.input/output)', async () => {
    const [t] = triplets(h.outcomes);
    expectRagTriplet(t, { convention: 'traceloop' });
    expect(t!.model).toBe('gpt-4o-mini');
    // Streaming: the instrumentation counts tokens itself (js-tiktoken) instead of reading the usage chunk.
    expect(t!.latency.outputTokens).toBeGreaterThan(0);
    // The JS openai instrumentation records no first-chunk time.
    expect(t!.latency.ttftMs).toBeUndefined();
    expect(h.outcomes).toHaveLength(1);
  });

  for (const encoding of ['json', 'protobuf'] as const) {
    it(`sidecar: /v1/traces (${encoding}) gives the same triplet`, async () => {
      const spans = exported.getFinishedSpans();
      expect(spans.map((s) => s.name).sort()).toEqual(['chat gpt-4o-mini', 'rag.workflow', 'retrieve_documents.task']);
      const { outcomes } = await replayOtlp(spans as never, [], encoding);
      expectRagTriplet(triplets(outcomes)[0], { convention: 'traceloop' });
    });
  }
});

/**
 * Vercel AI SDK v7 with the `@ai-sdk/otel` `OpenTelemetry` integration: GenAI-style spans
 * (`invoke_agent`, `chat`, `execute_tool`), mapped by the genai mapper; a tool's result is the
 * answering call's sources; TTFT from `gen_ai.client.operation.time_to_first_chunk`.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { OpenTelemetry } from '@ai-sdk/otel';
import { embed, registerTelemetry, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.ts';
import { EMBED_REQUEST, expectRagTriplet, ignoredSpans, expectTtft, type Harness, maybeWriteFixture, RAG, RAG_REPLY, replayOtlp, startHarness, triplets } from '../helpers/harness.ts';

let fake: FakeOpenAI;
let h: Harness;

beforeAll(async () => {
  fake = await startFakeOpenAI((req) => {
    const messages = (req.body?.messages ?? []) as Array<{ role: string }>;
    const wantsTool = Array.isArray(req.body?.tools) && !messages.some((m) => m.role === 'tool');
    return wantsTool ? { toolCalls: [{ id: 'call_1', name: 'searchDocs', arguments: JSON.stringify({ query: RAG.query }) }] } : RAG_REPLY;
  });
  h = startHarness();
  const openai = createOpenAI({ baseURL: fake.baseURL, apiKey: 'test' });
  // Warm-up before telemetry is registered: lazy module loading and the first connection are not TTFT.
  for await (const _ of streamText({ model: openai.chat('gpt-4o-mini'), prompt: 'warm-up' }).textStream);
  registerTelemetry(new OpenTelemetry());
  const result = streamText({
    model: openai.chat('gpt-4o-mini'),
    prompt: RAG.query,
    tools: { searchDocs: tool({ description: 'Search the docs', inputSchema: z.object({ query: z.string() }), execute: ({ query }) => Promise.resolve(query === RAG.query ? RAG.docs : []) }) },
    stopWhen: stepCountIs(2),
  });
  let text = '';
  for await (const c of result.textStream) text += c;
  expect(text).toBe(RAG.answer);
  // The query embedded through the GenAI integration (gen_ai.operation.name = embeddings): never a triplet.
  await embed({ model: openai.embedding(EMBED_REQUEST.model), value: RAG.query });
  await h.flush();
  maybeWriteFixture('vercel-ai-v7', h.spans.getFinishedSpans());
});

afterAll(async () => {
  await h.shutdown();
  await fake.close();
});

describe('genai mapper on ai@7 + @ai-sdk/otel', () => {
  it('the answering chat span takes the execute_tool result as sources', () => {
    const names = h.spans.getFinishedSpans().map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['invoke_agent gpt-4o-mini', 'chat gpt-4o-mini', 'execute_tool searchDocs']));
    const [t] = triplets(h.outcomes);
    expectRagTriplet(t, { convention: 'genai' });
    expectTtft(t!);
    expect(t!.latency.outputTokens).toBe(RAG.outputTokens);
    expect(t!.latency.tpotMs).toBeGreaterThan(0);
    // The tool-calling chat span ended before the tool ran and has no answer text: incomplete, never emitted.
    expect(h.outcomes.filter((o) => o.kind === 'incomplete')).toEqual([expect.objectContaining({ missing: ['sources', 'response'] })]);
  });

  it('embed(): the embeddings span is counted as ignored, never an outcome', async () => {
    expect(h.outcomes).toHaveLength(2);
    expect(h.spans.getFinishedSpans().some((s) => s.attributes['gen_ai.operation.name'] === 'embeddings')).toBe(true);
    expect(await ignoredSpans(h.pipeline.instruments)).toMatchObject({ embedding: expect.any(Number) });
  });

  for (const encoding of ['json', 'protobuf'] as const) {
    it(`sidecar: /v1/traces (${encoding}) gives the same triplet`, async () => {
      const { outcomes } = await replayOtlp(h.spans.getFinishedSpans(), [], encoding);
      const [t] = triplets(outcomes);
      expectRagTriplet(t, { convention: 'genai' });
      expect(t!.latency.ttftMs).toBe(triplets(h.outcomes)[0]!.latency.ttftMs);
    });
  }
});

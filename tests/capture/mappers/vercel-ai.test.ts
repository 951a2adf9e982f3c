/**
 * Vercel AI SDK v6 `experimental_telemetry` spans (`ai.*`), driven by the real `ai@6` +
 * `@ai-sdk/openai@3` (aliases `ai-v6`, `ai-sdk-openai-v3`) against the fake server: documents in
 * the prompt (custom prompt pattern), and retrieval as a tool (`ai.toolCall` result as sources).
 */
import { embed, stepCountIs, streamText, tool } from 'ai-v6';
import { createOpenAI } from 'ai-sdk-openai-v3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.ts';
import { contextBlock, EMBED_REQUEST, expectRagTriplet, ignoredSpans, expectTtft, type Harness, maybeWriteFixture, RAG, RAG_REPLY, replayOtlp, startHarness, triplets } from '../helpers/harness.ts';

const PROMPT_CONFIG = {
  capture: {
    custom: {
      promptContextPattern: String.raw`Context:\n(?<context>[\s\S]*?)\n\nQuestion:`,
      promptQueryPattern: String.raw`Question:\s*(?<query>.+)$`,
    },
  },
};
const PROMPT_SOURCES = RAG.docs.map((d) => ({ id: d.id, content: d.content }));

let fake: FakeOpenAI;
let h: Harness;

beforeAll(async () => {
  fake = await startFakeOpenAI((req) => {
    const messages = (req.body?.messages ?? []) as Array<{ role: string }>;
    const wantsTool = Array.isArray(req.body?.tools) && !messages.some((m) => m.role === 'tool');
    return wantsTool ? { toolCalls: [{ id: 'call_1', name: 'searchDocs', arguments: JSON.stringify({ query: RAG.query }) }] } : RAG_REPLY;
  });
  h = startHarness({ config: PROMPT_CONFIG });
  const openai = createOpenAI({ baseURL: fake.baseURL, apiKey: 'test' });
  // Warm-up without telemetry: lazy module loading and the first connection are not TTFT.
  for await (const _ of streamText({ model: openai.chat('gpt-4o-mini'), prompt: 'warm-up' }).textStream);

  // 1. Documents in the prompt, no retriever span.
  const inPrompt = streamText({
    model: openai.chat('gpt-4o-mini'),
    system: 'Answer only from the context.',
    prompt: `Context:\n${contextBlock()}\n\nQuestion: ${RAG.query}`,
    experimental_telemetry: { isEnabled: true, functionId: 'rag-prompt' },
  });
  let text = '';
  for await (const c of inPrompt.textStream) text += c;
  expect(text).toBe(RAG.answer);

  // 2. Retrieval as a tool.
  const withTool = streamText({
    model: openai.chat('gpt-4o-mini'),
    prompt: RAG.query,
    tools: { searchDocs: tool({ description: 'Search the docs', inputSchema: z.object({ query: z.string() }), execute: ({ query }) => Promise.resolve(query === RAG.query ? RAG.docs : []) }) },
    stopWhen: stepCountIs(2),
    experimental_telemetry: { isEnabled: true, functionId: 'rag-tool' },
  });
  text = '';
  for await (const c of withTool.textStream) text += c;
  expect(text).toBe(RAG.answer);
  // 3. The query embedded with ai.embed (ai.embed / ai.embed.doEmbed spans): never a triplet.
  await embed({ model: openai.embedding(EMBED_REQUEST.model), value: RAG.query, experimental_telemetry: { isEnabled: true, functionId: 'rag-embed' } });
  await h.flush();
  maybeWriteFixture('vercel-ai', h.spans.getFinishedSpans());
});

afterAll(async () => {
  await h.shutdown();
  await fake.close();
});

function byFunction(functionId: string) {
  const ids = new Set(h.spans.getFinishedSpans().filter((s) => s.attributes['ai.telemetry.functionId'] === functionId).map((s) => s.spanContext().spanId));
  return h.outcomes.filter((o) => ids.has(o.kind === 'triplet' ? o.triplet.spanId : o.spanId));
}

describe('vercel-ai mapper on ai@6 experimental_telemetry', () => {
  it('documents in the prompt: sources and question cut out by the configured patterns; TTFT from msToFirstChunk', () => {
    const outcomes = byFunction('rag-prompt');
    expect(outcomes).toHaveLength(1);
    const t = expectRagTriplet(triplets(outcomes)[0], { convention: 'vercel-ai', sources: PROMPT_SOURCES });
    expectTtft(t);
    expect(t.latency.outputTokens).toBe(RAG.outputTokens);
    // TPOT = (msToFinish − TTFT) / (output tokens − 1)
    expect(t.latency.tpotMs).toBeGreaterThan(0);
    expect(t.latency.tpotMs!).toBeCloseTo((t.latency.durationMs - t.latency.ttftMs!) / (RAG.outputTokens - 1), -2);
    expect(outcomes[0]!.explain?.sourcesSource).toMatch(/prompt pattern/);
  });

  it('retrieval as a tool: the answering step takes the ai.toolCall result as sources and its query argument', () => {
    const outcomes = byFunction('rag-tool');
    const [t] = triplets(outcomes);
    expectRagTriplet(t, { convention: 'vercel-ai' });
    expectTtft(t!);
    // The first step only asked for the tool: no answer text, so it is incomplete, never emitted.
    const first = outcomes.filter((o) => o.kind === 'incomplete');
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ mapper: 'vercel-ai', missing: ['response'] });
  });

  it('ai.embed: its spans are counted as ignored, never outcomes', async () => {
    expect(byFunction('rag-embed')).toEqual([]);
    expect(h.spans.getFinishedSpans().map((s) => s.name)).toEqual(expect.arrayContaining(['ai.embed', 'ai.embed.doEmbed']));
    expect(await ignoredSpans(h.pipeline.instruments)).toEqual({ embedding: 2 });
  });

  it('without the prompt pattern configured, documents in the prompt are not guessed: incomplete{sources}', async () => {
    const { outcomes } = await replayOtlp(h.spans.getFinishedSpans(), [], 'json');
    const promptSpan = h.spans.getFinishedSpans().find((s) => s.attributes['ai.telemetry.functionId'] === 'rag-prompt' && s.name === 'ai.streamText.doStream')!;
    expect(outcomes.find((o) => o.kind === 'incomplete' && o.spanId === promptSpan.spanContext().spanId)).toMatchObject({ missing: ['sources'] });
  });

  for (const encoding of ['json', 'protobuf'] as const) {
    it(`sidecar: /v1/traces (${encoding}) gives the same triplets`, async () => {
      const { outcomes } = await replayOtlp(h.spans.getFinishedSpans(), [], encoding, PROMPT_CONFIG);
      const got = triplets(outcomes).sort((a, b) => a.id.localeCompare(b.id));
      const want = triplets(h.outcomes).sort((a, b) => a.id.localeCompare(b.id));
      expect(got).toHaveLength(2);
      expect(got.map((t) => [t.id, t.query, t.sources, t.response, t.latency.ttftMs])).toEqual(want.map((t) => [t.id, t.query, t.sources, t.response, t.latency.ttftMs]));
    });
  }
});

/**
 * Langfuse convention, driven by the real `@langfuse/tracing` (retriever observation) and
 * `@langfuse/openai` (`observeOpenAI`, streamed; records `completion_start_time`) against the fake.
 */
import { observeOpenAI } from '@langfuse/openai';
import { startActiveObservation, startObservation } from '@langfuse/tracing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.ts';
import { contextBlock, EMBED_REQUEST, expectRagTriplet, ignoredSpans, expectTtft, type Harness, maybeWriteFixture, RAG, RAG_REPLY, replayOtlp, startHarness, triplets } from '../helpers/harness.ts';

let fake: FakeOpenAI;
let h: Harness;

beforeAll(async () => {
  fake = await startFakeOpenAI(() => RAG_REPLY);
  h = startHarness();
  const raw = new OpenAI({ baseURL: fake.baseURL, apiKey: 'test' });
  // Warm-up, not observed: the first connection is not TTFT.
  await raw.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'warm-up' }] });
  const client = observeOpenAI(raw);
  await startActiveObservation('rag', async (root) => {
    root.update({ input: RAG.query });
    // The query is embedded before retrieval: observeOpenAI records that call as a *generation*.
    await client.embeddings.create(EMBED_REQUEST);
    const retriever = startObservation('retrieve', { input: { query: RAG.query } }, { asType: 'retriever' });
    retriever.update({ output: RAG.docs }).end();
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
    root.update({ output: text });
  });
  await h.flush();
  maybeWriteFixture('langfuse', h.spans.getFinishedSpans());
});

afterAll(async () => {
  await h.shutdown();
  await fake.close();
});

describe('langfuse mapper on @langfuse/tracing + @langfuse/openai', () => {
  it('in-process: the generation observation joins the retriever observation; TTFT from completion_start_time', () => {
    expect(h.outcomes).toHaveLength(1);
    const t = expectRagTriplet(triplets(h.outcomes)[0], { convention: 'langfuse' });
    expect(t.model).toBe('gpt-4o-mini');
    expectTtft(t);
    expect(t.latency.outputTokens).toBe(RAG.outputTokens);
  });

  it('the embedding call (a "generation" observation named OpenAI.embeddings) is counted as ignored, never a triplet', async () => {
    expect(h.spans.getFinishedSpans().map((s) => s.name)).toContain('OpenAI.embeddings');
    expect(await ignoredSpans(h.pipeline.instruments)).toEqual({ embedding: 1 });
  });

  for (const encoding of ['json', 'protobuf'] as const) {
    it(`sidecar: /v1/traces (${encoding}) gives the same triplet`, async () => {
      const { outcomes, instruments } = await replayOtlp(h.spans.getFinishedSpans(), [], encoding);
      expect(outcomes).toHaveLength(1);
      expect(await ignoredSpans(instruments)).toEqual({ embedding: 1 });
      const t = expectRagTriplet(triplets(outcomes)[0], { convention: 'langfuse' });
      expect(t.latency.ttftMs).toBe(triplets(h.outcomes)[0]!.latency.ttftMs);
    });
  }
});

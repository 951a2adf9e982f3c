/**
 * Conversations on Langfuse: a follow-up made with `@langfuse/openai` (`observeOpenAI`) under a
 * `@langfuse/tracing` observation carrying the trace's session id under the SDK's own attribute
 * (`LangfuseOtelSpanAttributes.TRACE_SESSION_ID`, what Langfuse's span processor writes for
 * `propagateAttributes({ sessionId })`; that processor exports to Langfuse, so it is not registered
 * here). The session id becomes the conversation id (pseudonymised); the earlier turns come from the
 * generation's input messages.
 */
import { observeOpenAI } from '@langfuse/openai';
import { LangfuseOtelSpanAttributes, startActiveObservation, startObservation } from '@langfuse/tracing';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { explainLine } from '../../../src/commands/extract.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.ts';
import { expectFollowUp, FIRST } from '../helpers/follow-up.ts';
import { contextBlock, RAG, RAG_REPLY, startHarness, triplets, type Harness } from '../helpers/harness.ts';

let fake: FakeOpenAI;
let h: Harness;

beforeAll(async () => {
  fake = await startFakeOpenAI(() => RAG_REPLY);
  h = startHarness();
  const client = observeOpenAI(new OpenAI({ baseURL: fake.baseURL, apiKey: 'test' }));
  await startActiveObservation('rag', async (root) => {
      root.otelSpan.setAttribute(LangfuseOtelSpanAttributes.TRACE_SESSION_ID, 'lf-session-9');
      root.update({ input: RAG.query });
      startObservation('retrieve', { input: { query: RAG.query } }, { asType: 'retriever' }).update({ output: RAG.docs }).end();
      await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [
          { role: 'system', content: `Answer only from the context.\n${contextBlock()}` },
          { role: 'user', content: FIRST.q },
          { role: 'assistant', content: FIRST.a },
          { role: 'user', content: RAG.query },
        ],
      });
    });
  await h.flush();
});

afterAll(async () => {
  await h?.shutdown();
  await fake?.close();
});

describe('conversation on @langfuse/tracing + @langfuse/openai', () => {
  it('the propagated session id is the conversation id; the earlier turns come from the generation input', () => {
    expectFollowUp(triplets(h.outcomes)[0], 'pseudonymised');
    expect(explainLine(h.outcomes.find((o) => o.kind === 'triplet')!)).toMatch(/conversation<-(session\.id|langfuse\.session\.id) on span/);
  });
});

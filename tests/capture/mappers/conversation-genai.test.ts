/**
 * Conversations on the OTel GenAI convention: the real `@opentelemetry/instrumentation-openai`
 * (content as log records) records a follow-up's messages; the app puts `gen_ai.conversation.id` on its
 * request span, as the semantic conventions say. The triplet carries the id (pseudonymised), turn 2 and
 * the first exchange, read from the content events.
 */
import { createRequire } from 'node:module';
import { SpanKind, trace } from '@opentelemetry/api';
import { OpenAIInstrumentation } from '@opentelemetry/instrumentation-openai';
import type * as OpenAIv6 from 'openai-v6';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.ts';
import { expectFollowUp, FIRST } from '../helpers/follow-up.ts';
import { contextBlock, RAG, RAG_REPLY, startHarness, triplets, type Harness } from '../helpers/harness.ts';

const require = createRequire(import.meta.url);
const openaiV6 = require('openai-v6') as typeof OpenAIv6;

let fake: FakeOpenAI;
let h: Harness;

beforeAll(async () => {
  process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT = 'true';
  fake = await startFakeOpenAI(() => RAG_REPLY);
  const instrumentation = new OpenAIInstrumentation();
  h = startHarness({ instrumentations: [instrumentation] });
  for (const def of instrumentation.getModuleDefinitions()) def.patch?.(openaiV6, '6.30.1');
  const tracer = trace.getTracer('rag-app');
  const client = new openaiV6.OpenAI({ baseURL: fake.baseURL, apiKey: 'test' });
  await tracer.startActiveSpan('POST /chat', { attributes: { 'gen_ai.conversation.id': 'thread-42' } }, async (root) => {
    tracer.startSpan('retrieval docs', { kind: SpanKind.CLIENT, attributes: { 'gen_ai.operation.name': 'retrieval', 'gen_ai.retrieval.query.text': RAG.query, 'gen_ai.retrieval.documents': JSON.stringify(RAG.docs) } }).end();
    await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: `Answer only from the context.\n${contextBlock()}` },
        { role: 'user', content: FIRST.q },
        { role: 'assistant', content: FIRST.a },
        { role: 'user', content: RAG.query },
      ],
    });
    root.end();
  });
  await h.flush();
});

afterAll(async () => {
  await h?.shutdown();
  await fake?.close();
});

describe('conversation on @opentelemetry/instrumentation-openai (OTel GenAI)', () => {
  it('takes gen_ai.conversation.id from the request span and the earlier turns from the content events', () => {
    expectFollowUp(triplets(h.outcomes)[0], 'pseudonymised');
  });
});

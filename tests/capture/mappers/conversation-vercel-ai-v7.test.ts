/**
 * Conversations on the Vercel AI SDK v7 (`@ai-sdk/otel` integration): a follow-up sent with its
 * `messages` history. The SDK exports no conversation id, so the triplet carries an anonymous
 * conversation: turn 2 with the first exchange as history; `--explain` says it is anonymous.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { OpenTelemetry } from '@ai-sdk/otel';
import { registerTelemetry, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { explainLine } from '../../../src/commands/extract.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.ts';
import { RAG, RAG_REPLY, startHarness, triplets, type Harness } from '../helpers/harness.ts';

let fake: FakeOpenAI;
let h: Harness;
const FIRST = { q: 'Where is the Chimnabai Clock Tower?', a: 'It is in Vadodara, Gujarat.' };

beforeAll(async () => {
  fake = await startFakeOpenAI((req) => {
    const messages = (req.body?.messages ?? []) as Array<{ role: string }>;
    const wantsTool = Array.isArray(req.body?.tools) && !messages.some((m) => m.role === 'tool');
    return wantsTool ? { toolCalls: [{ id: 'call_1', name: 'searchDocs', arguments: JSON.stringify({ query: RAG.query }) }] } : RAG_REPLY;
  });
  h = startHarness();
  const openai = createOpenAI({ baseURL: fake.baseURL, apiKey: 'test' });
  registerTelemetry(new OpenTelemetry());
  const result = streamText({
    model: openai.chat('gpt-4o-mini'),
    messages: [
      { role: 'user', content: FIRST.q },
      { role: 'assistant', content: FIRST.a },
      { role: 'user', content: RAG.query },
    ],
    tools: { searchDocs: tool({ description: 'Search the docs', inputSchema: z.object({ query: z.string() }), execute: () => Promise.resolve(RAG.docs) }) },
    stopWhen: stepCountIs(2),
  });
  let text = '';
  for await (const c of result.textStream) text += c;
  expect(text).toBe(RAG.answer);
  await h.flush();
});

afterAll(async () => {
  await h?.shutdown();
  await fake?.close();
});

describe('conversation on ai@7 + @ai-sdk/otel', () => {
  it('an anonymous conversation: turn 2, the first exchange as history, no id', () => {
    const [t] = triplets(h.outcomes);
    expect(t?.query).toBe(RAG.query);
    expect(t?.conversation).toEqual({ turn: 2, history: [{ role: 'user', content: FIRST.q }, { role: 'assistant', content: FIRST.a }] });
    const line = explainLine(h.outcomes.find((o) => o.kind === 'triplet')!);
    expect(line).toContain('conversation<-anonymous (no conversation id exported; history from the input messages)');
    expect(line).toContain('history: turn 2, 2 earlier messages kept; query as typed');
  });
});

/**
 * A two-turn chat on the Vercel AI SDK v7 (a follow-up sent with its `messages` history and a search
 * tool) under one of the `@ai-sdk/otel` integrations, into the capture harness.
 */
import { createOpenAI } from '@ai-sdk/openai';
import type { Telemetry } from 'ai';
import { registerTelemetry, stepCountIs, streamText, tool } from 'ai';
import { expect } from 'vitest';
import { z } from 'zod';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.ts';
import { FIRST } from './follow-up.ts';
import { RAG, RAG_REPLY, startHarness, type Harness } from './harness.ts';

/** Runs the follow-up with the integration `telemetry()` makes (after the SDK starts: it takes the tracer provider then) registered; returns the harness and the fake (close both). */
export async function vercelFollowUp(telemetry: () => Telemetry): Promise<{ h: Harness; fake: FakeOpenAI }> {
  const fake = await startFakeOpenAI((req) => {
    const messages = (req.body?.messages ?? []) as Array<{ role: string }>;
    const wantsTool = Array.isArray(req.body?.tools) && !messages.some((m) => m.role === 'tool');
    return wantsTool ? { toolCalls: [{ id: 'call_1', name: 'searchDocs', arguments: JSON.stringify({ query: RAG.query }) }] } : RAG_REPLY;
  });
  const h = startHarness();
  const openai = createOpenAI({ baseURL: fake.baseURL, apiKey: 'test' });
  registerTelemetry(telemetry());
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
  return { h, fake };
}

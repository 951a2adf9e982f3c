/**
 * Conversations (issue 33), on real instrumentation output: a two-turn chat made with the OpenAI SDK
 * under `@arizeai/openinference-instrumentation-openai`, inside OpenInference's `setSession`, with a
 * RETRIEVER span per turn (the app condenses the follow-up into a standalone question before
 * retrieving). The follow-up's triplet carries the session id (pseudonymised), turn 2, the first
 * exchange as history, the typed question apart from the standalone one; bounds cut a long history
 * (counted); the history is redacted like the query; and `extract --explain` says where each came from.
 */
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import { setSession } from '@arizeai/openinference-core';
import { context, trace } from '@opentelemetry/api';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTriplets } from '../../src/capture/build-triplets.ts';
import { Capture } from '../../src/capture/capture.ts';
import { conversationOf } from '../../src/capture/conversation.ts';
import { createMappers } from '../../src/capture/mappers/index.ts';
import type { CapturedSpan } from '../../src/capture/types.ts';
import { loadConfig } from '../../src/config/load.ts';
import { createInstruments } from '../../src/telemetry/instruments.ts';
import { metricValue } from '../helpers/process.ts';
import { explainLine } from '../../src/commands/extract.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server.ts';
import { replayOtlp, startHarness, triplets, type Harness } from './helpers/harness.ts';

const SESSION = 'chat-7f3a';
const TURN1 = { typed: 'Who designed the Chimnabai Clock Tower?', standalone: 'Who designed the Chimnabai Clock Tower?', answer: 'It was designed by Robert Chisholm.' };
const TURN2 = { typed: 'And when was it completed? Mail me at ada@example.com', standalone: 'When was the Chimnabai Clock Tower completed?', answer: 'It was completed in 1896.' };
const DOC = 'The Chimnabai Clock Tower in Vadodara was designed by Robert Chisholm and completed in 1896.';

let fake: FakeOpenAI;
let h: Harness;

async function turn(client: OpenAI, history: Array<{ role: 'user' | 'assistant'; content: string }>, t: typeof TURN1) {
  const tracer = trace.getTracer('rag-app');
  await tracer.startActiveSpan('chat-turn', async (root) => {
    root.setAttribute('openinference.span.kind', 'CHAIN');
    root.setAttribute('input.value', t.typed);
    await tracer.startActiveSpan('retrieve', async (span) => {
      span.setAttributes({ 'openinference.span.kind': 'RETRIEVER', 'input.value': t.standalone, 'retrieval.documents.0.document.id': 'doc-1', 'retrieval.documents.0.document.content': DOC });
      span.end();
    });
    await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'system', content: `Answer from the context.\n${DOC}` }, ...history, { role: 'user', content: t.typed }] });
    root.end();
  });
}

beforeAll(async () => {
  const answers = [TURN1.answer, TURN2.answer];
  fake = await startFakeOpenAI(() => ({ content: answers.shift() ?? 'ok' }));
  const instrumentation = new OpenAIInstrumentation();
  h = startHarness({ instrumentations: [instrumentation], config: { redaction: { hmacKey: 'test-key-0123456789abcdef0123456789abcdef' } } });
  instrumentation.manuallyInstrument(OpenAI);
  const client = new OpenAI({ baseURL: fake.baseURL, apiKey: 'test' });
  await context.with(setSession(context.active(), { sessionId: SESSION }), async () => {
    await turn(client, [], TURN1);
    await turn(client, [{ role: 'user', content: TURN1.typed }, { role: 'assistant', content: TURN1.answer }], TURN2);
  });
  await h.flush();
});

afterAll(async () => {
  await h?.shutdown();
  await fake?.close();
});

describe('conversation capture (OpenInference OpenAI instrumentation + setSession)', () => {
  it('both turns carry the same pseudonymised session id; the follow-up has turn 2, the first exchange as history, and its typed question apart', () => {
    const ts = triplets(h.outcomes).sort((a, b) => (a.conversation?.turn ?? 0) - (b.conversation?.turn ?? 0));
    expect(ts).toHaveLength(2);
    const [first, second] = ts as [NonNullable<(typeof ts)[0]>, NonNullable<(typeof ts)[0]>];
    expect(first.conversation?.id).toMatch(/^k1_[0-9a-f]{12}$/);
    expect(first.conversation?.id).not.toContain(SESSION);
    expect(second.conversation?.id).toBe(first.conversation?.id);
    expect(first.conversation).toMatchObject({ turn: 1, history: [] });
    expect(first.conversation?.typedQuery).toBeUndefined();
    expect(second.conversation?.turn).toBe(2);
    expect(second.conversation?.history).toEqual([{ role: 'user', content: TURN1.typed }, { role: 'assistant', content: TURN1.answer }]);
    // The retriever got the standalone question: that is the query judged; the typed one is kept, redacted.
    expect(second.query).toBe(TURN2.standalone);
    expect(second.conversation?.typedQuery).toMatch(/^And when was it completed\? Mail me at <EMAIL_[^>]+>$/);
    expect(JSON.stringify(second)).not.toContain('ada@example.com');
  });

  it('the same through OTLP, and --explain says where the conversation came from', async () => {
    const { outcomes } = await replayOtlp(h.spans.getFinishedSpans(), [], 'protobuf');
    const followUp = outcomes.find((o) => o.kind === 'triplet' && o.triplet.conversation?.turn === 2)!;
    expect(followUp.kind).toBe('triplet');
    const line = explainLine(followUp);
    expect(line).toMatch(/conversation<-session\.id on span [0-9a-f]{8} "/);
    expect(line).toContain("history: turn 2, 2 earlier messages kept; query is the app's standalone question (the typed one differs)");
  });
});

describe('history bounds', () => {
  it('thousands of turns and megabyte messages are cut to the bounds and counted, never copied whole', () => {
    const messages = [{ role: 'system', content: 'ctx' }, ...Array.from({ length: 4000 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: i === 3998 ? 'x'.repeat(1_000_000) : `m${i}` })), { role: 'user', content: 'last?' }];
    const c = conversationOf(messages, undefined, { maxTurns: 20, maxChars: 2000 })!;
    expect(c.turn).toBe(2001);
    expect(c.history).toHaveLength(20);
    expect(c.history[0]!.content).toBe('m3980');
    expect(c.history[18]!.content).toHaveLength(2001);
    expect(c.cut).toEqual({ turns: 3980, chars: 1_000_000 - 2000 });
    expect(c.typed).toBe('last?');
  });

  it('a first turn without an id is no conversation; an anonymous follow-up keeps its history without an id', () => {
    expect(conversationOf([{ role: 'user', content: 'q' }], undefined, { maxTurns: 5, maxChars: 100 })).toBeUndefined();
    const anon = conversationOf([{ role: 'user', content: 'q1' }, { role: 'assistant', content: 'a1' }, { role: 'user', content: 'q2' }], undefined, { maxTurns: 5, maxChars: 100 })!;
    expect(anon.id).toBeUndefined();
    expect(anon.turn).toBe(2);
    expect(anon.history.map((t) => t.content)).toEqual(['q1', 'a1']);
  });
});

describe('malformed messages and the cut counter', () => {
  const span = (attributes: Record<string, string>, spanId: string, parentSpanId?: string): CapturedSpan => ({ traceId: 'c'.repeat(32), spanId, ...(parentSpanId ? { parentSpanId } : {}), name: spanId === 'a'.repeat(16) ? 'chat m' : 'retrieval', kind: 2, startMs: 0, endMs: 1, attributes, events: [], droppedEventsCount: 0, resource: { 'service.name': 'svc' }, scope: 's' });
  const retrieval = span({ 'gen_ai.operation.name': 'retrieval', 'gen_ai.retrieval.query.text': 'Q?', 'gen_ai.retrieval.documents': JSON.stringify([{ id: 'd', content: 'A is true.' }]) }, 'b'.repeat(16), 'r'.repeat(16));
  const generation = (messages: string) => span({ 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': messages, 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'A.' }] }]) }, 'a'.repeat(16), 'r'.repeat(16));
  const root = span({ 'input.value': 'Q?' }, 'r'.repeat(16));
  const options = { mappers: createMappers(loadConfig({ env: {} }).capture.custom), defaultService: 'x', maxTextChars: 1000 };

  it('a malformed messages attribute is ignored, with the reason in --explain; the triplet is still made', () => {
    for (const [messages, reason] of [['{not json', 'gen_ai.input.messages is not JSON'], ['{"role":"user"}', 'gen_ai.input.messages is not a list of messages'], ['[{"who":"user"}]', 'gen_ai.input.messages has no message with a role and text']] as const) {
      const [o] = buildTriplets([root, retrieval, generation(messages)], options);
      expect(o?.kind, messages).toBe('triplet');
      expect(explainLine(o!)).toContain(`input messages ignored: ${reason}`);
    }
  });

  it('cut messages and characters are counted in ragwatch_conversation_history_cut_total', async () => {
    const instruments = createInstruments({ processMetrics: false });
    const capture = new Capture({ config: loadConfig({ env: {}, overrides: { capture: { conversation: { maxTurns: 2, maxChars: 5 } } } }).capture, instruments, onTriplet: () => undefined });
    const history = Array.from({ length: 6 }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', parts: [{ type: 'text', content: `message ${i}` }] }));
    capture.addSpans([root, retrieval, generation(JSON.stringify([...history, { role: 'user', parts: [{ type: 'text', content: 'Q?' }] }]))], 'otlp');
    await capture.forceFlush();
    const text = await instruments.registry.metrics();
    expect(metricValue(text, 'ragwatch_conversation_history_cut_total', { unit: 'messages' })).toBe(4);
    expect(metricValue(text, 'ragwatch_conversation_history_cut_total', { unit: 'characters' })).toBe(2 * 4);
    await capture.shutdown();
  });
});

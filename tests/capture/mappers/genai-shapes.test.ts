/**
 * Older and alternative GenAI content shapes the real-library tests do not produce: indexed
 * `gen_ai.prompt.N.*` attributes (OpenLLMetry < 0.23, Traceloop manual API), v1.26–27 span events,
 * `gen_ai.*.message` / `gen_ai.choice` span events, structured (non-JSON-string) messages, and the
 * `inference.operation.details` event.
 */
import { describe, expect, it } from 'vitest';
import { genAiMapper } from '../../../src/capture/mappers/genai.ts';
import type { AttrValue, Attributes, CapturedEvent, CapturedLog, CapturedSpan } from '../../../src/capture/types.ts';

function span(attributes: Attributes, events: CapturedEvent[] = []): CapturedSpan {
  return { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), name: 'chat m', kind: 2, startMs: 0, endMs: 1, attributes, events, droppedEventsCount: 0, resource: {}, scope: 's' };
}
const ev = (name: string, attributes: Attributes): CapturedEvent => ({ name, timeMs: 0, attributes });
const log = (eventName: string, body: AttrValue): CapturedLog => ({ eventName, timeMs: 0, body, attributes: {}, traceId: 'a'.repeat(32), spanId: 'b'.repeat(16) });

describe('genai mapper content shapes', () => {
  it('indexed gen_ai.prompt.N / gen_ai.completion.N attributes (no operation name)', () => {
    const s = span({ 'gen_ai.prompt.0.role': 'system', 'gen_ai.prompt.0.content': 'ctx', 'gen_ai.prompt.1.role': 'user', 'gen_ai.prompt.1.content': 'Q?', 'gen_ai.completion.0.role': 'assistant', 'gen_ai.completion.0.content': 'A.', 'gen_ai.usage.completion_tokens': 7 });
    expect(genAiMapper.role(s)).toBe('generation');
    expect(genAiMapper.generation(s, [])).toMatchObject({ query: 'Q?', response: 'A.', outputTokens: 7 });
  });

  it('v1.26–27 span events gen_ai.content.prompt / gen_ai.content.completion', () => {
    const s = span({ 'gen_ai.operation.name': 'chat' }, [
      ev('gen_ai.content.prompt', { 'gen_ai.prompt': JSON.stringify([{ role: 'user', content: 'Q?' }]) }),
      ev('gen_ai.content.completion', { 'gen_ai.completion': JSON.stringify([{ role: 'assistant', content: 'A.' }]) }),
    ]);
    expect(genAiMapper.generation(s, [])).toMatchObject({ query: 'Q?', response: 'A.' });
  });

  it('gen_ai.user.message / gen_ai.choice as span events and as log records', () => {
    const s = span({ 'gen_ai.operation.name': 'chat' }, [ev('gen_ai.user.message', { content: 'Q?' })]);
    expect(genAiMapper.generation(s, [log('gen_ai.choice', { index: 0, finish_reason: 'stop', message: { content: 'A.' } })])).toMatchObject({ query: 'Q?', response: 'A.' });
  });

  it('structured (non-string) input/output messages and system instructions', () => {
    const s = span({
      'gen_ai.operation.name': 'chat',
      'gen_ai.system_instructions': [{ type: 'text', content: 'ctx' }],
      'gen_ai.input.messages': [{ role: 'user', parts: [{ type: 'text', content: 'Q?' }] }],
      'gen_ai.output.messages': [{ role: 'assistant', parts: [{ type: 'text', content: 'A.' }], finish_reason: 'stop' }],
    });
    expect(genAiMapper.generation(s, [])).toMatchObject({ query: 'Q?', response: 'A.', inputMessages: [{ role: 'system', content: 'ctx' }, { role: 'user', content: 'Q?' }] });
  });

  it('gen_ai.client.inference.operation.details log record', () => {
    const details = log('gen_ai.client.inference.operation.details', null);
    details.attributes = { 'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'Q?' }] }]), 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'A.' }] }]) };
    expect(genAiMapper.generation(span({ 'gen_ai.operation.name': 'chat' }), [details])).toMatchObject({ query: 'Q?', response: 'A.' });
  });

  it('retrieval documents without content are not sources (ids and scores alone are never guessed into text)', () => {
    const s = span({ 'gen_ai.operation.name': 'retrieval', 'gen_ai.retrieval.query.text': 'Q?', 'gen_ai.retrieval.documents': JSON.stringify([{ id: 'd1', score: 0.9 }]) });
    expect(genAiMapper.role(s)).toBe('retrieval');
    expect(genAiMapper.retrieval(s, [])).toEqual({ query: 'Q?' });
  });
});

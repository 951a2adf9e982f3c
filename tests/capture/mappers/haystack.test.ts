/**
 * The haystack mapper on the spans Haystack's own tracer really sent (tests/fixtures/otlp/python/,
 * recorded from the live runs: Haystack 3 with opentelemetry-haystack, Haystack 2 with its built-in
 * tracer), and on the component shapes those runs do not produce (a text generator, ChatMessage dicts
 * before Haystack 2.9), written after Haystack's own `to_dict`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTriplets } from '../../../src/capture/build-triplets.ts';
import { DEFAULT_MAPPERS } from '../../../src/capture/mappers/index.ts';
import { haystackMapper } from '../../../src/capture/mappers/haystack.ts';
import { decodeTraces } from '../../../src/capture/otlp/decode.ts';
import type { CapturedSpan } from '../../../src/capture/types.ts';

const FIXTURES = join(import.meta.dirname, '../../fixtures/otlp/python');
const spansOf = (combination: string) => decodeTraces(readFileSync(join(FIXTURES, combination, 'traces.json')), 'application/json').spans;
const build = (spans: CapturedSpan[]) => buildTriplets(spans, { mappers: DEFAULT_MAPPERS, defaultService: 'x', maxTextChars: 4000 });
const generators = (spans: CapturedSpan[]) => spans.filter((s) => haystackMapper.role(s) === 'generation');
const completionStart = (s: CapturedSpan) => /"completion_start_time": "([^"]+)"/.exec(String(s.attributes['haystack.component.output']))?.[1];

describe.each(['haystack-haystack', 'haystack2-haystack'])('haystack mapper on %s', (combination) => {
  const spans = spansOf(combination);

  it('a retriever component gives the documents with their ids and BM25 scores, and the query it was asked', () => {
    const retriever = spans.find((s) => s.attributes['haystack.component.type'] === 'InMemoryBM25Retriever')!;
    expect(haystackMapper.role(retriever)).toBe('retrieval');
    const { query, sources } = haystackMapper.retrieval(retriever, []);
    expect(query).toMatch(/\?$/);
    expect(sources!.length).toBeGreaterThan(0);
    for (const s of sources!) expect(s).toMatchObject({ id: expect.stringMatching(/^doc-/), content: expect.any(String), score: expect.any(Number) });
  });

  it('the streamed reply gives TTFT from its completion_start_time, read as UTC; a time outside the span is ignored', () => {
    const streamed = generators(spans).find((s) => completionStart(s) !== undefined)!;
    const startedAt = Date.parse(`${completionStart(streamed)!}Z`);
    const [o] = build(spans.filter((s) => s.traceId === streamed.traceId));
    expect(o).toMatchObject({ kind: 'triplet', triplet: { convention: 'haystack', latency: { ttftMs: startedAt - streamed.startMs } } });
    const shifted = { ...streamed, startMs: startedAt + 1 };
    const [late] = build(spans.filter((s) => s.traceId === streamed.traceId).map((s) => (s === streamed ? shifted : s)));
    expect(late!.kind === 'triplet' && late.triplet.latency.ttftMs).toBeUndefined();
  });

  it('a streamed call whose input Haystack could only repr is read without its messages, and says why', () => {
    const streamed = generators(spans).find((s) => completionStart(s) !== undefined)!;
    const fields = haystackMapper.generation(streamed, []);
    expect(fields.inputMessages).toBeUndefined();
    expect(fields.inputMessagesIgnored).toMatch(/not JSON/);
    expect(fields).toMatchObject({ model: 'gpt-4o-mini', inputTokens: 60, outputTokens: expect.any(Number), response: expect.any(String) });
  });

  it('components that are neither retrievers nor generators (prompt builder, connector) have no role; the search pipeline gives no outcome', () => {
    const others = spans.filter((s) => ['ChatPromptBuilder', 'OpenTelemetryConnector'].includes(String(s.attributes['haystack.component.type'])) || s.name === 'haystack.pipeline.run');
    expect(others.length).toBeGreaterThan(0);
    expect(others.map((s) => haystackMapper.role(s))).toEqual(others.map(() => undefined));
    const answering = new Set(generators(spans).map((s) => s.traceId));
    const searchTraces = new Set(spans.filter((s) => s.name === 'haystack.pipeline.run' && !answering.has(s.traceId)).map((s) => s.traceId));
    expect(searchTraces.size).toBe(1);
    expect(build(spans.filter((s) => searchTraces.has(s.traceId)))).toEqual([]);
  });
});

describe('haystack mapper on shapes the recorded runs do not have', () => {
  const component = (type: string, input: unknown, output: unknown): CapturedSpan => ({
    traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), name: 'haystack.component.run', kind: 0, startMs: 0, endMs: 10, events: [], droppedEventsCount: 0, resource: {}, scope: 'haystack',
    attributes: { 'haystack.component.type': type, 'haystack.component.input': JSON.stringify(input), 'haystack.component.output': JSON.stringify(output) },
  });

  it('a text generator: the prompt is the question, replies are strings with their meta beside them', () => {
    const span = component('OpenAIGenerator', { prompt: 'Q?' }, { replies: ['A.'], meta: [{ model: 'm', usage: { prompt_tokens: 3, completion_tokens: 2 } }] });
    expect(haystackMapper.role(span)).toBe('generation');
    expect(haystackMapper.generation(span, [])).toEqual({ inputMessages: [{ role: 'user', content: 'Q?' }], query: 'Q?', response: 'A.', model: 'm', inputTokens: 3, outputTokens: 2 });
  });

  it('ChatMessage dicts of Haystack before 2.9 (`_role`, `_content`) are read too', () => {
    const span = component('OpenAIChatGenerator', { messages: [{ _role: 'user', _content: [{ text: 'Q?' }] }] }, { replies: [{ _role: 'assistant', _content: [{ text: 'A.' }], _meta: { model: 'm' } }] });
    expect(haystackMapper.generation(span, [])).toMatchObject({ query: 'Q?', response: 'A.', model: 'm' });
  });

  it('a ranker is a retrieval (the latest one before the generation wins: the reranked list)', () => {
    expect(haystackMapper.role(component('TransformersSimilarityRanker', { query: 'q' }, { documents: [{ id: 'd', content: 'c', score: 0.9 }] }))).toBe('retrieval');
    expect(haystackMapper.role(component('SentenceTransformersDocumentEmbedder', {}, {}))).toBeUndefined();
  });
});

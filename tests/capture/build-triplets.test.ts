/**
 * buildTriplets rules the real-library tests do not isolate: which retrieval feeds a generation,
 * one model call seen by several instrumentations reported once, the stable id, and truncation.
 */
import { describe, expect, it } from 'vitest';
import { buildTriplets, isoTimestamp, tripletId } from '../../src/capture/build-triplets.ts';
import { DEFAULT_MAPPERS } from '../../src/capture/mappers/index.ts';
import { CUSTOM_DEFAULTS, createPromptSourceExtractor } from '../../src/capture/mappers/custom.ts';
import { scoreRecordOf } from '../../src/scorer/score-record.ts';
import type { Attributes, CapturedSpan } from '../../src/capture/types.ts';

const T = 'a'.repeat(32);
let seq = 0;
function span(attributes: Attributes, startMs: number, endMs: number, extra: Partial<CapturedSpan> = {}): CapturedSpan {
  return { traceId: T, spanId: (++seq).toString(16).padStart(16, '0'), name: `s${seq}`, kind: 0, startMs, endMs, attributes, events: [], droppedEventsCount: 0, resource: { 'service.name': 'svc' }, scope: 't', ...extra };
}
const retriever = (doc: string, startMs: number, endMs: number, extra: Partial<CapturedSpan> = {}) =>
  span({ 'openinference.span.kind': 'RETRIEVER', 'input.value': 'q?', 'retrieval.documents.0.document.content': doc }, startMs, endMs, extra);
const llm = (answer: string, startMs: number, endMs: number, extra: Partial<CapturedSpan> = {}) =>
  span({ 'openinference.span.kind': 'LLM', 'llm.input_messages.0.message.role': 'user', 'llm.input_messages.0.message.content': 'q?', 'llm.output_messages.0.message.role': 'assistant', 'llm.output_messages.0.message.content': answer }, startMs, endMs, extra);
const build = (spans: CapturedSpan[], maxTextChars = 1000) => buildTriplets(spans, { mappers: DEFAULT_MAPPERS, defaultService: 'x', maxTextChars });

describe('isoTimestamp', () => {
  it('formats like Date, and never throws: times past a Date\'s range are clamped to its ends (found by the fault fuzzer)', () => {
    for (const ms of [0, 1_795_337_112_094.7, 86_399_999, -1, 253_402_300_800_000]) expect(isoTimestamp(ms)).toBe(new Date(ms).toISOString());
    expect(isoTimestamp(1e300)).toBe('+275760-09-13T00:00:00.000Z');
    expect(isoTimestamp(-Infinity)).toBe('-271821-04-20T00:00:00.000Z');
    expect(isoTimestamp(Number.NaN)).toBe('1970-01-01T00:00:00.000Z');
  });

  it('a generation whose end time no Date can hold still gives its triplet', () => {
    const [o] = build([retriever('d', 0, 10), llm('a', 12, 1e300)]);
    expect(o).toMatchObject({ kind: 'triplet', triplet: { response: 'a', timestamp: '+275760-09-13T00:00:00.000Z' } });
  });
});

describe('buildTriplets', () => {
  it('carries the service release (resource service.version) when the SDK sets it, and through the score record', () => {
    const [withRelease] = build([retriever('d', 0, 10), llm('a', 12, 20, { resource: { 'service.name': 'svc', 'service.version': '2.3.1' } })]);
    expect(withRelease).toMatchObject({ kind: 'triplet', triplet: { service: 'svc', release: '2.3.1' } });
    const [without] = build([retriever('d', 0, 10), llm('a', 12, 20)]);
    expect(without!.kind === 'triplet' && 'release' in without.triplet).toBe(false);
    const t = withRelease!.kind === 'triplet' ? withRelease.triplet : undefined;
    const record = scoreRecordOf({ ...t!, sampling: { weight: 1, stratum: 'all', rule: 'rate' } }, { kind: 'embedded' }, { scores: {}, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 } });
    expect(record.release).toBe('2.3.1');
  });

  it('each generation takes the latest retrieval that ended before it started', () => {
    const out = build([llm('a2', 40, 50), retriever('d1', 0, 10), llm('a1', 12, 20), retriever('d2', 25, 30)]);
    const bySources = Object.fromEntries(out.map((o) => (o.kind === 'triplet' ? [o.triplet.response, o.triplet.sources[0]!.content] : ['', ''])));
    expect(bySources).toEqual({ a1: 'd1', a2: 'd2' });
  });

  it('of two nested retrievals the outer one feeds the generation, whatever their sub-millisecond ends say', () => {
    // LlamaIndex: the query engine's retrieve (after node postprocessors) wraps the retriever's.
    for (const innerEndMs of [10, 10.4]) {
      const outer = retriever('filtered', 0, 10.2);
      const inner = retriever('unfiltered', 0, innerEndMs, { parentSpanId: outer.spanId });
      for (const order of [[outer, inner], [inner, outer]]) {
        const [o] = build([...order, llm('a', 12, 20)]);
        expect(o).toMatchObject({ kind: 'triplet', triplet: { sources: [{ content: 'filtered' }] } });
      }
    }
  });

  it('a retrieval that started after the generation ended never feeds it', () => {
    const [o] = build([llm('a', 0, 10), retriever('late', 20, 30)]);
    expect(o).toMatchObject({ kind: 'incomplete', missing: ['sources'] });
  });

  it('prefers the generation\'s own trace when a request spans several traces', () => {
    const other = 'b'.repeat(32);
    const out = build([retriever('own', 0, 5), retriever('other', 0, 8, { traceId: other }), llm('a', 10, 20)]);
    expect(out[0]).toMatchObject({ kind: 'triplet', triplet: { sources: [{ content: 'own' }] } });
  });

  it('one model call seen by several instrumentations is reported once, by the innermost span (the call itself)', () => {
    const outer = llm('same', 10, 30);
    const middle = llm('same', 11, 29, { parentSpanId: outer.spanId });
    const inner = llm('same', 12, 28, { parentSpanId: middle.spanId });
    for (const order of [[outer, middle, inner], [inner, middle, outer]]) {
      const out = build([retriever('d', 0, 5), ...order]);
      expect(out).toHaveLength(1);
      expect(out[0]).toMatchObject({ kind: 'triplet', triplet: { spanId: inner.spanId, id: tripletId(T, inner.spanId) } });
    }
  });

  it('a streamed call beside its framework span (same answer, overlapping, not nested) is reported once, by the later-starting span', () => {
    const parent = span({}, 0, 40);
    const framework = llm('same', 10, 35, { parentSpanId: parent.spanId });
    const client = llm('same', 12, 33, { parentSpanId: parent.spanId });
    const out = build([retriever('d', 0, 5), framework, client, parent]);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ kind: 'triplet', triplet: { spanId: client.spanId } });
  });

  it('the same answer to two questions in sequence is two calls, both reported', () => {
    const other = span({ 'openinference.span.kind': 'LLM', 'llm.input_messages.0.message.role': 'user', 'llm.input_messages.0.message.content': 'another q?', 'llm.output_messages.0.message.role': 'assistant', 'llm.output_messages.0.message.content': 'same' }, 21, 30);
    const out = build([retriever('d', 0, 5), llm('same', 10, 20), other]);
    expect(out.map((o) => o.kind)).toEqual(['triplet', 'triplet']);
  });

  it('a framework span that ends when it hands out the stream, before the client call it starts, is the same call: reported once, by the later span', () => {
    const parent = span({}, 0, 40);
    const framework = llm('same', 10, 11, { parentSpanId: parent.spanId });
    const client = llm('same', 15, 30, { parentSpanId: parent.spanId });
    const out = build([retriever('d', 0, 5), framework, client, parent]);
    expect(out).toMatchObject([{ kind: 'triplet', triplet: { spanId: client.spanId } }]);
  });

  it('a generation without an answer around one with an answer is a wrapper, not an incomplete outcome', () => {
    const wrapper = span({ 'openinference.span.kind': 'LLM', 'llm.input_messages.0.message.role': 'user', 'llm.input_messages.0.message.content': 'q?' }, 10, 30);
    const call = llm('a', 11, 29, { parentSpanId: wrapper.spanId });
    expect(build([retriever('d', 0, 5), wrapper, call])).toMatchObject([{ kind: 'triplet', triplet: { spanId: call.spanId } }]);
    // Alone, a generation without an answer is still reported as incomplete.
    expect(build([retriever('d', 0, 5), wrapper])).toMatchObject([{ kind: 'incomplete', missing: ['response'] }]);
  });

  it('clips every text field at maxTextChars', () => {
    const [o] = build([retriever('x'.repeat(50), 0, 5), llm('y'.repeat(50), 10, 20)], 10);
    expect(o).toMatchObject({ kind: 'triplet', triplet: { sources: [{ content: 'x'.repeat(10) }], response: 'y'.repeat(10), service: 'svc' } });
  });
});

describe('sources from the prompt without document markers (issue 52)', () => {
  // LangChain under OpenInference: the retriever is another trace; the chat span holds the context block.
  const promptSources = createPromptSourceExtractor({ ...CUSTOM_DEFAULTS, promptContextPattern: 'Context:\n(?<context>[\\s\\S]*)$' })!;
  const chat = (system: string) =>
    span({ 'openinference.span.kind': 'LLM', 'llm.input_messages.0.message.role': 'system', 'llm.input_messages.0.message.content': system, 'llm.input_messages.1.message.role': 'user', 'llm.input_messages.1.message.content': 'When?', 'llm.output_messages.0.message.role': 'assistant', 'llm.output_messages.0.message.content': 'In 1889.' }, 0, 10);
  const buildWith = (spans: CapturedSpan[]) => buildTriplets(spans, { mappers: DEFAULT_MAPPERS, defaultService: 'x', maxTextChars: 1000, promptSources });

  it('a "\\n".join(page_content) block gives one source: a triplet, not incomplete{missing="sources"}', () => {
    const [o] = buildWith([chat('Answer from the context.\nContext:\nThe tower was completed in 1889.\nIt is 330 m tall.')]);
    expect(o).toMatchObject({ kind: 'triplet', triplet: { sources: [{ content: 'The tower was completed in 1889.\nIt is 330 m tall.' }] } });
    expect(o!.explain?.sourcesSource).toContain('no document markers');
  });

  it('an empty block stays incomplete, and the explanation says the pattern matched a block with no documents', () => {
    const [o] = buildWith([chat('Answer from the context.\nContext:\n')]);
    expect(o).toMatchObject({ kind: 'incomplete', missing: ['sources'], explain: { sourcesNote: 'context pattern matched, no documents in it' } });
  });
});

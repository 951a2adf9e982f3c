/**
 * The custom convention: app-set attributes (`rag.query`, `rag.response`, `rag.sources`) on spans
 * from a real OTel SDK tracer, and the prompt-source extractor.
 */
import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUSTOM_DEFAULTS, EMPTY_CONTEXT_NOTE, NO_CONTEXT_NOTE, createPromptSourceExtractor } from '../../../src/capture/mappers/custom.ts';
import { contextBlock, expectRagTriplet, ignoredSpans, type Harness, maybeWriteFixture, RAG, startHarness, triplets } from '../helpers/harness.ts';

let h: Harness;

beforeAll(async () => {
  h = startHarness({ config: { capture: { custom: { queryAttributes: ['app.question'], responseAttributes: ['app.answer'], sourcesAttributes: ['app.sources'] } } } });
  const tracer = trace.getTracer('rag-app');
  tracer.startActiveSpan('answer', (span) => {
    tracer.startSpan('search', { attributes: { 'app.question': RAG.query, 'app.sources': JSON.stringify(RAG.docs) } }).end();
    span.setAttributes({ 'app.question': RAG.query, 'app.answer': RAG.answer });
    span.end();
  });
  // A generation whose sources attribute holds no document content: incomplete, not guessed.
  tracer.startActiveSpan('answer-without-content', (span) => {
    span.setAttributes({ 'app.question': RAG.query, 'app.answer': RAG.answer, 'app.sources': JSON.stringify(RAG.docs.map((d) => ({ id: d.id, score: d.score }))) });
    span.end();
  });
  // The app's own model-call wrapper also sets the answer attribute on an embedding call: not a generation.
  tracer.startActiveSpan('embed-query', (span) => {
    span.setAttributes({ 'app.question': RAG.query, 'app.answer': '', 'gen_ai.request.model': 'text-embedding-3-small' });
    span.end();
  });
  await h.flush();
  maybeWriteFixture('custom', h.spans.getFinishedSpans());
});

afterAll(() => h.shutdown());

describe('custom mapper', () => {
  it('reads the configured attribute names and joins the span carrying the sources', () => {
    expectRagTriplet(triplets(h.outcomes)[0], { convention: 'custom' });
  });

  it('ids and scores without content are not sources', () => {
    const incomplete = h.outcomes.filter((o) => o.kind === 'incomplete');
    expect(incomplete).toEqual([expect.objectContaining({ mapper: 'custom', missing: ['sources'] })]);
  });

  it('a span with the answer attribute on an embedding model is counted as ignored, never an outcome', async () => {
    expect(h.outcomes).toHaveLength(2);
    expect(await ignoredSpans(h.pipeline.instruments)).toEqual({ embedding: 1 });
  });
});

describe('prompt source extractor', () => {
  const extract = createPromptSourceExtractor({ ...CUSTOM_DEFAULTS, promptContextPattern: String.raw`<context>\n?(?<context>[\s\S]*?)</context>` })!;

  it('takes numbered documents from the system message and the question from the user message', () => {
    const got = extract([
      { role: 'system', content: `Answer from the context.\n<context>\n${contextBlock()}\n</context>` },
      { role: 'user', content: RAG.query },
    ]);
    expect(got).toEqual({ sources: RAG.docs.map((d) => ({ id: d.id, content: d.content })), query: RAG.query });
  });

  it('with the block in the user message and no question pattern, the question is the rest of the message', () => {
    const got = extract([{ role: 'user', content: `<context>${contextBlock()}</context>\n${RAG.query}` }]);
    expect(got?.query).toBe(RAG.query);
    expect(got?.sources.map((s) => s.id)).toEqual(['doc-1', 'doc-2']);
  });

  it('no match → no sources, and a note saying the pattern matched nothing (the generation stays incomplete{sources})', () => {
    expect(extract([{ role: 'user', content: RAG.query }])).toEqual({ sources: [], note: NO_CONTEXT_NOTE });
    expect(createPromptSourceExtractor(CUSTOM_DEFAULTS)).toBeUndefined();
  });
});

describe('a context block without document markers (issue 52: LangChain joins page_content with "\\n")', () => {
  // The README's advice for LangChain under OpenInference, with the default promptDocumentPattern.
  const extract = createPromptSourceExtractor({ ...CUSTOM_DEFAULTS, promptContextPattern: 'Context:\n(?<context>[\\s\\S]*)$' })!;
  const docs = ['The Eiffel Tower was completed in 1889.', 'It is 330 metres tall\nand made of wrought iron.'];

  it('lines joined by single newlines: the whole block is one source (a newline is no document boundary)', () => {
    const got = extract([
      { role: 'system', content: `Answer from the context.\nContext:\n${docs.join('\n')}` },
      { role: 'user', content: 'When was the Eiffel Tower completed?' },
    ]);
    expect(got).toEqual({ sources: [{ content: docs.join('\n') }], query: 'When was the Eiffel Tower completed?', note: 'no document markers: the whole context block is one source' });
  });

  it('paragraphs separated by blank lines: one source each', () => {
    const got = extract([
      { role: 'system', content: `Context:\n${docs.join('\n\n')}\n` },
      { role: 'user', content: 'How tall is it?' },
    ]);
    expect(got?.sources).toEqual(docs.map((content) => ({ content })));
    expect(got?.note).toBe('no document markers: 2 paragraphs, one source each');
  });

  it('an empty block gives no source, and says so in the trail\'s words', () => {
    const got = extract([{ role: 'system', content: 'Context:\n  \n' }, { role: 'user', content: 'q?' }]);
    expect(got).toEqual({ sources: [], note: EMPTY_CONTEXT_NOTE });
    expect(EMPTY_CONTEXT_NOTE).toBe('context pattern matched, no documents in it');
  });

  it('marked documents still split by their markers', () => {
    const got = extract([{ role: 'system', content: 'Context:\n[a] one\n[b] two' }, { role: 'user', content: 'q?' }]);
    expect(got?.sources).toEqual([{ id: 'a', content: 'one' }, { id: 'b', content: 'two' }]);
    expect(got?.note).toBeUndefined();
  });
});

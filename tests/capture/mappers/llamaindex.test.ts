/**
 * OpenLLMetry / Traceloop convention on LlamaIndex.TS: the real `llamaindex` 0.12.1 RAG stack
 * (in-memory VectorStoreIndex, `@llamaindex/openai` 0.4.22 LLM + embeddings pointed at the fake
 * server, whose embeddings are bag-of-words vectors so the retriever ranks the right chunk first)
 * instrumented by `@traceloop/instrumentation-llamaindex` 0.27.0 through
 * `traceloop.initialize({ instrumentModules: { llamaIndex, llamaIndexOpenAI } })` — the manual path,
 * since vitest's ESM loading bypasses the require hooks. One streamed and one plain query, and one
 * whose similarity postprocessor drops a chunk (the outer retrieve task's list is what the LLM saw).
 */
import * as traceloop from '@traceloop/node-server-sdk';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import * as llamaindex from 'llamaindex';
import * as llamaindexOpenAI from '@llamaindex/openai';
import { SimilarityPostprocessor } from 'llamaindex/postprocessors';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Source } from '../../../src/triplet.ts';
import { bagOfWordsEmbedding, startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.ts';
import { expectRagTriplet, ignoredSpans, type Harness, maybeWriteFixture, RAG, RAG_REPLY, replayOtlp, startHarness, triplets } from '../helpers/harness.ts';

const METADATA = [
  { file_name: 'chimnabai.txt', page_label: 1 },
  { file_name: 'chimnabai.txt', page_label: 2 },
];
/** Spans of one query engine request (the index build's text embeddings are not traced). */
const REQUEST_SPANS = ['base_embedding.get_query_embedding', 'chat gpt-4o-mini', 'compact_and_refine.synthesize', 'retriever_query_engine.query', 'retriever_query_engine.retrieve', 'vector_index_retriever.retrieve'];

let fake: FakeOpenAI;
let h: Harness;
const exported = new InMemorySpanExporter();
/** The sources each query's EngineResponse reports (`sourceNodes`), as ragwatch should capture them. */
const reported: { streamed: Source[]; plain: Source[]; filtered: Source[] } = { streamed: [], plain: [], filtered: [] };
/** Trace of the query whose similarity postprocessor keeps only the best chunk. */
let filteredTraceId = '';
const answers: { streamed: string; plain: string } = { streamed: '', plain: '' };

function asSources(nodes: llamaindex.NodeWithScore[] | undefined): Source[] {
  return (nodes ?? []).map(({ node, score }) => ({
    id: node.id_,
    content: (node as llamaindex.TextNode).text,
    ...(score === undefined ? {} : { score }),
    metadata: { ...(node.metadata as Record<string, string | number>), ref_doc_id: node.sourceNode!.nodeId },
  }));
}

function traceOf(spans: readonly ReadableSpan[], streamed: boolean): string {
  const root = spans.find((s) => s.name === 'retriever_query_engine.query' && s.spanContext().traceId !== filteredTraceId && String(s.attributes['traceloop.entity.input']).includes('"stream":true') === streamed);
  return root!.spanContext().traceId;
}

beforeAll(async () => {
  fake = await startFakeOpenAI(() => RAG_REPLY, { embed: (text) => bagOfWordsEmbedding(text) });
  h = startHarness({ sdk: false });
  traceloop.initialize({
    appName: 'rag-app',
    disableBatch: true,
    silenceInitializationMessage: true,
    traceloopSyncEnabled: false,
    exporter: exported as never,
    processor: h.spanProcessor as never,
    // The SDK's declarations resolve llamaindex's CommonJS types; this is the ESM build of the same module.
    instrumentModules: { llamaIndex: llamaindex as never, llamaIndexOpenAI: llamaindexOpenAI },
  });
  llamaindex.Settings.llm = new llamaindexOpenAI.OpenAI({ model: 'gpt-4o-mini', baseURL: fake.baseURL, apiKey: 'test' });
  llamaindex.Settings.embedModel = new llamaindexOpenAI.OpenAIEmbedding({ model: 'text-embedding-3-small', baseURL: fake.baseURL, apiKey: 'test' });
  const documents = RAG.docs.map((d, i) => new llamaindex.Document({ id_: d.id, text: d.content, metadata: METADATA[i] }));
  const index = await llamaindex.VectorStoreIndex.fromDocuments(documents);
  const engine = index.asQueryEngine({ retriever: index.asRetriever({ similarityTopK: 2 }) });

  const stream = await engine.query({ query: RAG.query, stream: true });
  for await (const chunk of stream) {
    answers.streamed += chunk.delta;
    reported.streamed = asSources(chunk.sourceNodes);
  }
  const response = await engine.query({ query: RAG.query });
  answers.plain = response.message.content as string;
  reported.plain = asSources(response.sourceNodes);
  await vi.waitFor(() => expect(exported.getFinishedSpans()).toHaveLength(2 * REQUEST_SPANS.length), { timeout: 15_000, interval: 50 });

  // A cutoff between the two chunks' scores: the LLM sees one chunk, the inner retriever returned two.
  const cutoff = (reported.plain[0]!.score! + reported.plain[1]!.score!) / 2;
  const filtering = index.asQueryEngine({ retriever: index.asRetriever({ similarityTopK: 2 }), nodePostprocessors: [new SimilarityPostprocessor({ similarityCutoff: cutoff })] });
  const before = new Set(exported.getFinishedSpans().map((s) => s.spanContext().traceId));
  reported.filtered = asSources((await filtering.query({ query: RAG.query })).sourceNodes);
  await vi.waitFor(() => expect(exported.getFinishedSpans().length).toBeGreaterThanOrEqual(3 * REQUEST_SPANS.length), { timeout: 15_000, interval: 50 });
  filteredTraceId = exported.getFinishedSpans().map((s) => s.spanContext().traceId).find((t) => !before.has(t))!;
  await traceloop.forceFlush();
  await h.flush();
  maybeWriteFixture('llamaindex', exported.getFinishedSpans() as never);
});

afterAll(async () => {
  await h.shutdown();
  await fake.close();
});

describe('traceloop mapper on LlamaIndex.TS (@traceloop/instrumentation-llamaindex)', () => {
  it('the app got the answer, and the retriever ranked the chunks as the fixture does', () => {
    expect(answers).toEqual({ streamed: RAG.answer, plain: RAG.answer });
    for (const sources of [reported.streamed, reported.plain]) {
      expect(sources.map((s) => s.content)).toEqual(RAG.docs.map((d) => d.content));
      // fromDocuments split each document into one chunk: a fresh node id, the document id as its SOURCE.
      expect(sources.map((s) => s.metadata?.['ref_doc_id'])).toEqual(RAG.docs.map((d) => d.id));
      expect(sources[0]!.score!).toBeGreaterThan(sources[1]!.score!);
    }
  });

  it('spans: retrieve tasks with NodeWithScore JSON output, a chat span without first-chunk events', () => {
    const spans = exported.getFinishedSpans();
    for (const streamed of [true, false]) {
      const traceId = traceOf(spans, streamed);
      const mine = spans.filter((s) => s.spanContext().traceId === traceId);
      expect(mine.map((s) => s.name).sort()).toEqual(REQUEST_SPANS);
      const retrieve = mine.find((s) => s.name === 'retriever_query_engine.retrieve')!;
      expect(retrieve.attributes['traceloop.span.kind']).toBe('task');
      expect(JSON.parse(String(retrieve.attributes['traceloop.entity.input']))).toEqual({ args: [RAG.query], kwargs: {} });
      const output = JSON.parse(String(retrieve.attributes['traceloop.entity.output'])) as Array<{ node: Record<string, unknown>; score: number }>;
      expect(output.map((n) => [n.node['id_'], n.node['text'], n.score])).toEqual((streamed ? reported.streamed : reported.plain).map((s) => [s.id, s.content, s.score]));
      const chat = mine.find((s) => s.name === 'chat gpt-4o-mini')!;
      expect(chat.events).toEqual([]);
    }
  });

  it('the query-embedding task spans (base_embedding.get_query_embedding) are counted as ignored, never outcomes', async () => {
    const embeddings = exported.getFinishedSpans().filter((s) => s.name === 'base_embedding.get_query_embedding');
    expect(embeddings.length).toBeGreaterThanOrEqual(2);
    expect(await ignoredSpans(h.pipeline.instruments)).toEqual({ embedding: embeddings.length });
  });

  it('in-process: each chat span joins its query engine retrieve task (query, nodes, metadata, scores)', () => {
    expect(h.outcomes).toHaveLength(3);
    const spans = exported.getFinishedSpans();
    for (const streamed of [true, false]) {
      const outcome = h.outcomes.find((o) => o.kind === 'triplet' && o.triplet.traceId === traceOf(spans, streamed));
      expect(outcome?.kind).toBe('triplet');
      if (outcome?.kind !== 'triplet') continue;
      const t = expectRagTriplet(outcome.triplet, { convention: 'traceloop', sources: streamed ? reported.streamed : reported.plain });
      // Of the two nested retrieve tasks the outer one (what the query engine used) is taken.
      expect(outcome.explain?.sourcesSource).toMatch(/"retriever_query_engine\.retrieve" \(traceloop\)$/);
      expect(t.model).toBe('gpt-4o-mini');
      expect(t.latency.outputTokens).toBe(RAG.outputTokens);
      // The LlamaIndex chat wrapper records no first-chunk time (no event, no attribute).
      expect(t.latency.ttftMs).toBeUndefined();
    }
  });

  it('with a node postprocessor: the sources are the filtered nodes the LLM saw, not the retriever\'s', () => {
    const mine = exported.getFinishedSpans().filter((s) => s.spanContext().traceId === filteredTraceId);
    const nodes = (name: string) => (JSON.parse(String(mine.find((s) => s.name === name)!.attributes['traceloop.entity.output'])) as unknown[]).length;
    // Both nested tasks end within the same millisecond; only the outer one's list was filtered.
    expect([nodes('vector_index_retriever.retrieve'), nodes('retriever_query_engine.retrieve')]).toEqual([2, 1]);
    expect(reported.filtered.map((s) => s.content)).toEqual([RAG.docs[0]!.content]);
    const outcome = h.outcomes.find((o) => o.kind === 'triplet' && o.triplet.traceId === filteredTraceId);
    expect(outcome?.kind === 'triplet' ? outcome.triplet.sources : undefined).toEqual(reported.filtered);
  });

  for (const encoding of ['json', 'protobuf'] as const) {
    it(`sidecar: /v1/traces (${encoding}) gives the same triplets`, async () => {
      const spans = exported.getFinishedSpans();
      const { outcomes } = await replayOtlp(spans as never, [], encoding);
      const got = triplets(outcomes);
      expect(got).toHaveLength(3);
      expect(got.find((x) => x.traceId === filteredTraceId)?.sources).toEqual(reported.filtered);
      for (const streamed of [true, false]) {
        const t = got.find((x) => x.traceId === traceOf(spans, streamed));
        expectRagTriplet(t, { convention: 'traceloop', sources: streamed ? reported.streamed : reported.plain });
        expect(t!.latency.ttftMs).toBeUndefined();
      }
    });
  }
});

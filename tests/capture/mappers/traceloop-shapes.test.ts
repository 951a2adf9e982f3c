/**
 * Traceloop retriever-task shapes the real-library tests do not all produce: LlamaIndex.TS
 * NodeWithScore output with chunk metadata and source-document ids, queries passed as a QueryBundle
 * or as message content parts, and the `{documents:[…]}` output of the Python LangChain callback handler.
 */
import { describe, expect, it } from 'vitest';
import { entityQuery, entitySources, traceloopMapper } from '../../../src/capture/mappers/traceloop.ts';
import type { Attributes, CapturedSpan } from '../../../src/capture/types.ts';

function span(name: string, attributes: Attributes): CapturedSpan {
  return { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), name, kind: 0, startMs: 0, endMs: 1, attributes, events: [], droppedEventsCount: 0, resource: {}, scope: '@traceloop/instrumentation-llamaindex' };
}

const nodeWithScore = (id: string, text: string, score: number, metadata: Record<string, unknown>) => ({
  node: { id_: id, metadata, excludedEmbedMetadataKeys: [], excludedLlmMetadataKeys: [], relationships: {} as Record<string, unknown>, text, textTemplate: '', metadataSeparator: '\n', type: 'TEXT', hash: 'h' },
  score,
});

describe('traceloop mapper retriever-task shapes', () => {
  it('LlamaIndex.TS NodeWithScore[]: id_, text, score, and node.metadata flattened', () => {
    const s = span('vector_index_retriever.retrieve', {
      'traceloop.span.kind': 'task',
      'traceloop.entity.input': JSON.stringify({ args: ['Q?'], kwargs: {} }),
      'traceloop.entity.output': JSON.stringify([nodeWithScore('n1', 'First.', 0.8, { file_name: 'a.txt', page: 2, tags: ['x'] }), nodeWithScore('n2', 'Second.', 0.3, {})]),
    });
    expect(traceloopMapper.role(s)).toBe('retrieval');
    expect(traceloopMapper.retrieval(s, [])).toEqual({
      query: 'Q?',
      sources: [
        { id: 'n1', content: 'First.', score: 0.8, metadata: { file_name: 'a.txt', page: 2, tags: '["x"]' } },
        { id: 'n2', content: 'Second.', score: 0.3 },
      ],
    });
  });

  it('a chunk split from a document gets the document id as metadata.ref_doc_id (its own metadata wins)', () => {
    const chunk = nodeWithScore('uuid-1', 'Chunk.', 0.6, { file_name: 'a.txt' });
    chunk.node.relationships = { SOURCE: { nodeId: 'doc-1', metadata: {}, hash: 'h' } };
    const own = nodeWithScore('uuid-2', 'Other.', 0.4, { ref_doc_id: 'mine' });
    own.node.relationships = { SOURCE: { nodeId: 'doc-2', metadata: {}, hash: 'h' } };
    expect(entitySources(JSON.stringify([chunk, own]))).toEqual([
      { id: 'uuid-1', content: 'Chunk.', score: 0.6, metadata: { file_name: 'a.txt', ref_doc_id: 'doc-1' } },
      { id: 'uuid-2', content: 'Other.', score: 0.4, metadata: { ref_doc_id: 'mine' } },
    ]);
  });

  it('a NodeWithScore whose node has no text is skipped, not guessed', () => {
    expect(entitySources(JSON.stringify([{ node: { id_: 'img', metadata: {} }, score: 1 }, nodeWithScore('n1', 'Text.', 0.5, {})]))).toEqual([{ id: 'n1', content: 'Text.', score: 0.5 }]);
  });

  it('queries: QueryBundle kwargs, message content parts, and plain args', () => {
    expect(entityQuery(JSON.stringify({ args: [], kwargs: { query: 'Q?' } }))).toBe('Q?');
    expect(entityQuery(JSON.stringify({ args: [], kwargs: { query: [{ type: 'text', text: 'Q?' }] } }))).toBe('Q?');
    expect(entityQuery(JSON.stringify({ args: [{ query: [{ type: 'text', text: 'Q' }, { type: 'text', text: '?' }] }], kwargs: {} }))).toBe('Q?');
    expect(entityQuery(JSON.stringify({ args: ['Q?'], kwargs: {} }))).toBe('Q?');
    expect(entityQuery(JSON.stringify({ args: [{ query: [{ type: 'image_url', image_url: { url: 'x' } }] }], kwargs: {} }))).toBeUndefined();
  });

  it('Python LangChain vector_db_retrieve output ({documents:[{page_content, metadata}]}) is unchanged', () => {
    const out = JSON.stringify({ documents: [{ page_content: 'Doc.', metadata: { id: 'd1', score: 0.7 } }], count: 1 });
    expect(entitySources(out)).toEqual([{ id: 'd1', content: 'Doc.', score: 0.7, metadata: { id: 'd1', score: 0.7 } }]);
  });
});

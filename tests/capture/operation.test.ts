import { describe, expect, it } from 'vitest';
import { buildTriplets } from '../../src/capture/build-triplets.ts';
import { DEFAULT_MAPPERS } from '../../src/capture/mappers/index.ts';
import { declaredNonGeneration, nonGenerationOperation } from '../../src/capture/operation.ts';
import type { Attributes, CapturedSpan } from '../../src/capture/types.ts';

const span = (name: string, attributes: Attributes): CapturedSpan => ({
  traceId: 't1', spanId: name.replace(/\W/g, '').slice(0, 16).padEnd(16, '0'), name, kind: 0, startMs: 0, endMs: 1, attributes, events: [], droppedEventsCount: 0, resource: {}, scope: 'test',
});

describe('non-generation operations in every convention', () => {
  const cases: Array<[string, CapturedSpan, string]> = [
    ['OTel GenAI embeddings', span('embeddings text-embedding-3-small', { 'gen_ai.operation.name': 'embeddings' }), 'embedding'],
    ['OTel GenAI tool without result', span('execute_tool lookup', { 'gen_ai.operation.name': 'execute_tool' }), 'tool'],
    ['OpenLLMetry rerank request', span('cohere.rerank', { 'llm.request.type': 'rerank' }), 'rerank'],
    ['OpenLLMetry embedding request', span('openai.embeddings', { 'llm.request.type': 'embedding' }), 'embedding'],
    ['OpenInference EMBEDDING', span('CreateEmbeddings', { 'openinference.span.kind': 'EMBEDDING' }), 'embedding'],
    ['OpenInference GUARDRAIL', span('guard', { 'openinference.span.kind': 'GUARDRAIL' }), 'guardrail'],
    ['Langfuse embedding observation', span('embed', { 'langfuse.observation.type': 'embedding' }), 'embedding'],
    ['Vercel ai.embedMany.doEmbed', span('ai.embedMany.doEmbed', { 'ai.operationId': 'ai.embedMany.doEmbed' }), 'embedding'],
  ];
  for (const [name, s, op] of cases) it(`${name} → ${op}`, () => expect(declaredNonGeneration(s)).toBe(op));

  it('a "generation" recorded for an embedding or moderation model is told by its model or span name', () => {
    expect(nonGenerationOperation(span('OpenAI.embeddings', { 'langfuse.observation.type': 'generation' }))).toBe('embedding');
    expect(nonGenerationOperation(span('chat', { 'gen_ai.request.model': 'omni-moderation-latest' }))).toBe('moderation');
    expect(nonGenerationOperation(span('rerank', { 'llm.request.model': 'rerank-english-v3.0' }))).toBe('rerank');
  });

  it('chat and completion spans stay generations (no false "not a generation")', () => {
    expect(nonGenerationOperation(span('chat gpt-4o-mini', { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-mini' }))).toBeUndefined();
    expect(nonGenerationOperation(span('ChatOpenAI', { 'openinference.span.kind': 'LLM', 'llm.model_name': 'gpt-4o' }))).toBeUndefined();
    expect(nonGenerationOperation(span('ai.streamText.doStream', { 'ai.operationId': 'ai.streamText.doStream', 'ai.model.id': 'claude-3-5-sonnet' }))).toBeUndefined();
    // "embed" inside another word is not an embedding model.
    expect(nonGenerationOperation(span('assembler', { 'gen_ai.request.model': 'embedded-qa-7b' }))).toBeUndefined();
  });

  it('buildTriplets reports each once through onIgnored and emits no outcome for it', () => {
    const ignored: string[] = [];
    const spans = [span('OpenAI.embeddings', { 'langfuse.observation.type': 'generation', 'langfuse.observation.input': 'q', 'langfuse.observation.output': '' }), cases[0]![1]];
    const outcomes = buildTriplets(spans, { mappers: DEFAULT_MAPPERS, defaultService: 's', maxTextChars: 1000, onIgnored: (_s, op) => ignored.push(op) });
    expect(outcomes).toEqual([]);
    expect(ignored).toEqual(['embedding', 'embedding']);
  });
});

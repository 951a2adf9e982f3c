/**
 * `ragwatch extract` over the OTLP/JSON fixtures recorded from the real libraries
 * (tests/fixtures/otlp, regenerate with RAGWATCH_WRITE_FIXTURES=1 npx vitest run tests/capture/mappers):
 * every convention yields its exact triplet, and `--explain` names the mapper and the missing fields.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { extractCommand } from '../../src/commands/extract.ts';
import { tripletSchema, type Triplet } from '../../src/triplet.ts';
import { RAG } from '../capture/helpers/harness.ts';

const dir = fileURLToPath(new URL('../fixtures/otlp/', import.meta.url));

async function extract(name: string): Promise<{ triplets: Triplet[]; explain: string }> {
  const args = ['--explain'];
  if (existsSync(`${dir}${name}.ragwatch.yaml`)) args.push('-c', `${dir}${name}.ragwatch.yaml`);
  if (existsSync(`${dir}${name}.logs.json`)) args.push('--logs', `${dir}${name}.logs.json`);
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((err += String(chunk)), true));
  try {
    await extractCommand.run([...args, `${dir}${name}.traces.json`]);
  } finally {
    vi.restoreAllMocks();
  }
  return { triplets: out.trim().split('\n').filter(Boolean).map((l) => tripletSchema.parse(JSON.parse(l))), explain: err };
}

afterEach(() => vi.restoreAllMocks());

const withIds = RAG.docs.map((d) => ({ id: d.id, score: d.score, content: d.content }));
const CASES: Array<[string, string, number, RegExp[]]> = [
  ['genai', 'genai', 1, [/mapper=genai\n {4}missing=sources\n/]],
  ['openinference', 'openinference', 1, [/"OpenAI Chat Completions" mapper=openinference\n {4}missing=sources/]],
  ['traceloop', 'traceloop', 1, [/sources<-retrieval span [0-9a-f]{8} "retrieve_documents\.task" \(traceloop\)/]],
  ['vercel-ai', 'vercel-ai', 2, [/sources<-prompt pattern/, /missing=response/]],
  ['vercel-ai-v7', 'genai', 1, [/"execute_tool searchDocs" \(genai\)/, /missing=sources,response/]],
  ['langfuse', 'langfuse', 1, [/"retrieve" \(langfuse\)/]],
  ['custom', 'custom', 1, [/"answer-without-content" mapper=custom\n {4}missing=sources/]],
  // Chunk ids are fresh per index build and scores are the fake embeddings' cosines: contents only.
  ['llamaindex', 'traceloop', 2, [/sources<-retrieval span [0-9a-f]{8} "retriever_query_engine\.retrieve" \(traceloop\)/]],
];

describe('ragwatch extract on recorded fixtures', () => {
  it.each(CASES)('%s', async (name, convention, count, explains) => {
    const { triplets, explain } = await extract(name);
    expect(triplets).toHaveLength(count);
    for (const t of triplets) {
      expect(t.convention).toBe(convention);
      expect(t.query).toBe(RAG.query);
      expect(t.response).toBe(RAG.answer);
      expect(t.sources.map((s) => s.content)).toEqual(RAG.docs.map((d) => d.content));
    }
    if (!['vercel-ai', 'openinference', 'llamaindex'].includes(name)) expect(triplets[0]!.sources.map(({ id, score, content }) => ({ id, score, content }))).toEqual(withIds);
    for (const re of explains) expect(explain).toMatch(re);
  });
});

/**
 * OpenInference convention, driven by the real `@arizeai/openinference-instrumentation-langchain`
 * and `-openai` on a LangChain.js RAG chain (retriever → prompt → ChatOpenAI, streamed) against
 * the fake OpenAI server.
 */
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai';
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { Document } from '@langchain/core/documents';
import { StringOutputParser } from '@langchain/core/output_parsers';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { BaseRetriever } from '@langchain/core/retrievers';
import { RunnablePassthrough, RunnableSequence } from '@langchain/core/runnables';
import { ChatOpenAI } from '@langchain/openai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.ts';
import { EMBED_REQUEST, expectRagTriplet, ignoredSpans, type Harness, maybeWriteFixture, RAG, RAG_REPLY, replayOtlp, startHarness, triplets } from '../helpers/harness.ts';

/** A retriever over fixed documents; LangChain keeps ids/scores in metadata. */
class FixedRetriever extends BaseRetriever {
  override lc_namespace = ['tests'];
  override _getRelevantDocuments(): Promise<Document[]> {
    return Promise.resolve(RAG.docs.map((d) => new Document({ pageContent: d.content, metadata: { id: d.id, score: d.score } })));
  }
}

let fake: FakeOpenAI;
let h: Harness;
/** LangChain keeps document metadata; the mapper lifts id/score out of it and keeps the rest. */
const EXPECTED_SOURCES = RAG.docs.map((d) => ({ id: d.id, score: d.score, content: d.content, metadata: { id: d.id, score: d.score } }));

beforeAll(async () => {
  fake = await startFakeOpenAI(() => RAG_REPLY);
  // Both instrumentations must exist before either is enabled (they share the OpenInference tracer setup).
  const oiOpenAI = new OpenAIInstrumentation();
  const oiLangChain = new LangChainInstrumentation();
  h = startHarness({ instrumentations: [oiOpenAI, oiLangChain] });
  // ESM imports bypass the require hook: instrument the loaded modules explicitly (documented route).
  oiOpenAI.manuallyInstrument(OpenAI);
  oiLangChain.manuallyInstrument(CallbackManagerModule);

  const prompt = ChatPromptTemplate.fromMessages([
    ['system', 'Answer only from the context.\n{context}'],
    ['human', '{question}'],
  ]);
  // No `streaming: true`: LangChain would then estimate tokens with a tiktoken download; .stream() streams anyway.
  const llm = new ChatOpenAI({ model: 'gpt-4o-mini', apiKey: 'test', configuration: { baseURL: fake.baseURL } });
  const chain = RunnableSequence.from([
    { context: new FixedRetriever().pipe((docs: Document[]) => docs.map((d) => d.pageContent).join('\n')), question: new RunnablePassthrough() },
    prompt,
    llm,
    new StringOutputParser(),
  ]);
  let answer = '';
  for await (const chunk of await chain.stream(RAG.query)) answer += chunk;
  expect(answer).toBe(RAG.answer);
  // An embeddings call (OpenInference span kind EMBEDDING): counted as ignored, never a triplet.
  await new OpenAI({ baseURL: fake.baseURL, apiKey: 'test' }).embeddings.create(EMBED_REQUEST);
  await h.flush();
  maybeWriteFixture('openinference', h.spans.getFinishedSpans());
});

afterAll(async () => {
  await h.shutdown();
  await fake.close();
});

describe('openinference mapper on LangChain.js + OpenAI instrumentations', () => {
  it('in-process: the ChatOpenAI LLM span joins the RETRIEVER span of its trace', () => {
    const lc = triplets(h.outcomes).filter((t) => t.spanId === h.spans.getFinishedSpans().find((s) => s.name === 'ChatOpenAI')?.spanContext().spanId);
    const t = expectRagTriplet(lc[0], { convention: 'openinference', sources: EXPECTED_SOURCES });
    expect(t.model).toBe('gpt-4o-mini');
    expect(t.latency.outputTokens).toBe(RAG.outputTokens);
    expect(t.latency.inputTokens).toBe(10);
    // OpenInference JS records no first-token event: TTFT unknown, not guessed.
    expect(t.latency.ttftMs).toBeUndefined();
  });

  it('the OpenAI client span lands in a trace of its own (LangChain does not propagate context): incomplete{sources}', () => {
    const clientSpan = h.spans.getFinishedSpans().find((s) => s.name === 'OpenAI Chat Completions');
    expect(clientSpan).toBeDefined();
    const chatSpan = h.spans.getFinishedSpans().find((s) => s.name === 'ChatOpenAI')!;
    expect(clientSpan!.spanContext().traceId).not.toBe(chatSpan.spanContext().traceId);
    const outcome = h.outcomes.find((o) => o.kind === 'incomplete');
    expect(outcome).toMatchObject({ kind: 'incomplete', mapper: 'openinference', missing: ['sources'], spanId: clientSpan!.spanContext().spanId });
    expect(h.outcomes).toHaveLength(2);
  });

  it('the EMBEDDING span of an embeddings call is counted as ignored, never an outcome', async () => {
    expect(h.spans.getFinishedSpans().some((s) => s.attributes['openinference.span.kind'] === 'EMBEDDING')).toBe(true);
    expect(await ignoredSpans(h.pipeline.instruments)).toEqual({ embedding: 1 });
  });

  for (const encoding of ['json', 'protobuf'] as const) {
    it(`sidecar: /v1/traces (${encoding}) gives the same triplet`, async () => {
      const { outcomes } = await replayOtlp(h.spans.getFinishedSpans(), [], encoding);
      const [t] = triplets(outcomes);
      expectRagTriplet(t, { convention: 'openinference', sources: EXPECTED_SOURCES });
      expect(t!.id).toBe(triplets(h.outcomes)[0]!.id);
    });
  }
});

/**
 * OpenLLMetry / Traceloop convention on LangChain.js: `@traceloop/node-server-sdk` 0.27.0 with its
 * `@traceloop/instrumentation-langchain` 0.27.0 (always enabled by `initialize`; it patches the ESM
 * `@langchain/core/callbacks/manager` through a dynamic import) on a LangChain.js RAG chain
 * (retriever → prompt with the `[id] text` context block → ChatOpenAI, streamed) against the fake
 * server. The instrumentation's callback handler has no retriever callback: no span records the
 * documents, so the generation is `incomplete{sources}` unless the `custom` prompt-sources config
 * cuts them out of the system prompt.
 */
import * as traceloop from '@traceloop/node-server-sdk';
import type { Context } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan, type Span, type SpanProcessor } from '@opentelemetry/sdk-trace';
import { CallbackManager } from '@langchain/core/callbacks/manager';
import { Document } from '@langchain/core/documents';
import { StringOutputParser } from '@langchain/core/output_parsers';
import { ChatPromptTemplate } from '@langchain/core/prompts';
import { BaseRetriever } from '@langchain/core/retrievers';
import { RunnablePassthrough, RunnableSequence } from '@langchain/core/runnables';
import { ChatOpenAI } from '@langchain/openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.ts';
import { contextBlock, expectRagTriplet, type Harness, maybeWriteFixture, RAG, RAG_REPLY, replayOtlp, startHarness, triplets } from '../helpers/harness.ts';

/** A retriever over fixed documents (ids in metadata, formatted as `[id] text` into the prompt). */
class FixedRetriever extends BaseRetriever {
  override lc_namespace = ['tests'];
  override _getRelevantDocuments(): Promise<Document[]> {
    return Promise.resolve(RAG.docs.map((d) => new Document({ pageContent: d.content, metadata: { id: d.id, score: d.score } })));
  }
}

/** The span names of one chain run: a `workflow` span per runnable, one `chat` span, nothing for the retriever. */
const SPANS = ['chat gpt-4o-mini', 'workflow RunnableLambda', 'workflow RunnableMap', 'workflow RunnablePassthrough', 'workflow RunnableSequence', 'workflow RunnableSequence', 'workflow parser', 'workflow prompt'];
/** Matches the system prompt's context block (`[doc-1] …` lines up to the end of the message). */
const PROMPT_SOURCES = { capture: { custom: { promptContextPattern: String.raw`Context:\n(?<context>[\s\S]*)$` } } };
/** What the prompt pattern recovers: ids and contents of the `[id] text` lines, no scores. */
const PROMPT_DOCS = RAG.docs.map((d) => ({ id: d.id, content: d.content }));

/** Hands every span to both harnesses' processors (Traceloop takes one extra `processor`). */
class FanOut implements SpanProcessor {
  private readonly targets: SpanProcessor[];
  constructor(targets: SpanProcessor[]) {
    this.targets = targets;
  }
  onStart(span: Span, parentContext: Context): void {
    for (const t of this.targets) t.onStart(span, parentContext);
  }
  onEnd(span: ReadableSpan): void {
    for (const t of this.targets) t.onEnd(span);
  }
  async forceFlush(): Promise<void> {
    await Promise.all(this.targets.map((t) => t.forceFlush()));
  }
  async shutdown(): Promise<void> {
    await Promise.all(this.targets.map((t) => t.shutdown()));
  }
}

let fake: FakeOpenAI;
/** Default config. */
let h: Harness;
/** With the `custom` prompt-sources pattern. */
let hp: Harness;
const exported = new InMemorySpanExporter();

beforeAll(async () => {
  fake = await startFakeOpenAI(() => RAG_REPLY);
  h = startHarness({ sdk: false });
  hp = startHarness({ sdk: false, config: PROMPT_SOURCES });
  traceloop.initialize({
    appName: 'rag-app',
    disableBatch: true,
    silenceInitializationMessage: true,
    traceloopSyncEnabled: false,
    exporter: exported as never,
    processor: new FanOut([h.spanProcessor, hp.spanProcessor]) as never,
    instrumentModules: { langchain: true },
  });
  // The instrumentation patches the ESM CallbackManager after a dynamic import: wait for it.
  await vi.waitFor(() => expect((CallbackManager as unknown as { _traceloopPatched?: boolean })._traceloopPatched).toBe(true), { timeout: 5000, interval: 10 });

  const prompt = ChatPromptTemplate.fromMessages([
    ['system', 'Answer only from the context.\nContext:\n{context}'],
    ['human', '{question}'],
  ]);
  // No `streaming: true`: LangChain would then estimate tokens with a tiktoken download; .stream() streams anyway.
  const llm = new ChatOpenAI({ model: 'gpt-4o-mini', apiKey: 'test', configuration: { baseURL: fake.baseURL } });
  const chain = RunnableSequence.from([
    // The context block as contextBlock() formats it: `[id] text` per document.
    { context: new FixedRetriever().pipe((docs: Document[]) => docs.map((d) => `[${String(d.metadata['id'])}] ${d.pageContent}`).join('\n')), question: new RunnablePassthrough() },
    prompt,
    llm,
    new StringOutputParser(),
  ]);
  let answer = '';
  for await (const chunk of await chain.stream(RAG.query)) answer += chunk;
  expect(answer).toBe(RAG.answer);
  await vi.waitFor(() => expect(exported.getFinishedSpans()).toHaveLength(SPANS.length), { timeout: 15_000, interval: 50 });
  await traceloop.forceFlush();
  await h.flush();
  await hp.flush();
  maybeWriteFixture('traceloop-langchain', exported.getFinishedSpans() as never);
});

afterAll(async () => {
  await h.shutdown();
  await hp.shutdown();
  await fake.close();
});

function chatSpan(): ReadableSpan {
  return exported.getFinishedSpans().find((s) => s.name === 'chat gpt-4o-mini')!;
}

describe('traceloop mapper on LangChain.js (@traceloop/instrumentation-langchain)', () => {
  it('spans: workflow spans per runnable and a chat span, each a root of its own trace, no retriever span', () => {
    const spans = exported.getFinishedSpans();
    expect(spans.map((s) => s.name).sort()).toEqual(SPANS);
    for (const s of spans) expect(s.instrumentationScope.name).toBe('@traceloop/instrumentation-langchain');
    // The handler starts spans without making them active: no parent links, one trace per span.
    expect(spans.filter((s) => s.parentSpanContext !== undefined)).toEqual([]);
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(SPANS.length);
    for (const s of spans.filter((x) => x.name.startsWith('workflow '))) {
      expect(s.kind).toBe(0); // INTERNAL
      expect(s.attributes['traceloop.span.kind']).toBe('workflow');
      expect(s.attributes['gen_ai.operation.name']).toBe('workflow');
    }
    // The retriever's documents appear only as the string the lambda made of them (a workflow output).
    const lambda = spans.find((s) => s.name === 'workflow RunnableLambda')!;
    expect(JSON.parse(String(lambda.attributes['traceloop.entity.output']))).toBe(contextBlock());
    const chat = chatSpan();
    expect(chat.kind).toBe(2); // CLIENT
    expect(chat.attributes['gen_ai.operation.name']).toBe('chat');
    expect(chat.attributes['gen_ai.provider.name']).toBe('openai');
    expect(chat.attributes['traceloop.span.kind']).toBeUndefined();
    expect(JSON.parse(String(chat.attributes['gen_ai.input.messages']))).toEqual([
      { role: 'system', parts: [{ type: 'text', content: `Answer only from the context.\nContext:\n${contextBlock()}` }] },
      { role: 'user', parts: [{ type: 'text', content: RAG.query }] },
    ]);
    expect(JSON.parse(String(chat.attributes['gen_ai.output.messages']))).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: RAG.answer }], finish_reason: 'stop' }]);
    expect([chat.attributes['gen_ai.usage.input_tokens'], chat.attributes['gen_ai.usage.output_tokens']]).toEqual([10, RAG.outputTokens]);
    // Streamed, yet no first-token event or attribute.
    expect(chat.events).toEqual([]);
  });

  it('in-process, default config: the chat span is incomplete{sources}, query and response found', () => {
    const chat = chatSpan();
    expect(h.outcomes).toEqual([
      {
        kind: 'incomplete',
        traceId: chat.spanContext().traceId,
        spanId: chat.spanContext().spanId,
        mapper: 'traceloop',
        missing: ['sources'],
        explain: { spanName: 'chat gpt-4o-mini', querySource: 'generation span input (traceloop)', responseSource: 'generation span (traceloop)' },
      },
    ]);
    expect(triplets(h.outcomes)).toEqual([]);
  });

  it('in-process, custom prompt-sources config: the triplet with the [id] documents from the system prompt', () => {
    expect(hp.outcomes).toHaveLength(1);
    const outcome = hp.outcomes[0]!;
    expect(outcome.kind).toBe('triplet');
    if (outcome.kind !== 'triplet') return;
    const t = expectRagTriplet(outcome.triplet, { convention: 'traceloop', sources: PROMPT_DOCS });
    expect(outcome.explain).toEqual({ spanName: 'chat gpt-4o-mini', sourcesSource: 'prompt pattern (capture.custom.promptContextPattern)', querySource: 'prompt pattern', responseSource: 'generation span (traceloop)' });
    expect(t.spanId).toBe(chatSpan().spanContext().spanId);
    expect(t.model).toBe('gpt-4o-mini');
    expect([t.latency.inputTokens, t.latency.outputTokens]).toEqual([10, RAG.outputTokens]);
    // The LangChain handler records no first-token time: unknown, not guessed.
    expect(t.latency.ttftMs).toBeUndefined();
  });

  for (const encoding of ['json', 'protobuf'] as const) {
    it(`sidecar: /v1/traces (${encoding}) gives the same outcomes with either config`, async () => {
      const spans = exported.getFinishedSpans() as never;
      const plain = await replayOtlp(spans, [], encoding);
      expect(plain.outcomes.map((o) => (o.kind === 'incomplete' ? [o.kind, o.spanId, o.missing] : [o.kind]))).toEqual([['incomplete', chatSpan().spanContext().spanId, ['sources']]]);
      const withPattern = await replayOtlp(spans, [], encoding, PROMPT_SOURCES);
      const got = triplets(withPattern.outcomes);
      expect(withPattern.outcomes).toHaveLength(1);
      const t = expectRagTriplet(got[0], { convention: 'traceloop', sources: PROMPT_DOCS });
      expect(t.latency.ttftMs).toBeUndefined();
      expect(t.latency.outputTokens).toBe(RAG.outputTokens);
    });
  }
});

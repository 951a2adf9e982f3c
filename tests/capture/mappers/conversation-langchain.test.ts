/**
 * Conversations on OpenInference's LangChain.js instrumentation: a RAG chain whose prompt carries the
 * chat history (`MessagesPlaceholder`), run inside `setSession`. The ChatOpenAI span's triplet carries
 * the session id (pseudonymised), turn 2 and the first exchange as history; the retriever got the typed
 * follow-up, so the query is as typed.
 */
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import { setSession } from '@arizeai/openinference-core';
import { context } from '@opentelemetry/api';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { Document } from '@langchain/core/documents';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { StringOutputParser } from '@langchain/core/output_parsers';
import { ChatPromptTemplate, MessagesPlaceholder } from '@langchain/core/prompts';
import { BaseRetriever } from '@langchain/core/retrievers';
import { RunnableLambda, RunnableSequence } from '@langchain/core/runnables';
import { ChatOpenAI } from '@langchain/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.ts';
import { expectFollowUp, FIRST } from '../helpers/follow-up.ts';
import { RAG, RAG_REPLY, startHarness, triplets, type Harness } from '../helpers/harness.ts';

class FixedRetriever extends BaseRetriever {
  override lc_namespace = ['tests'];
  override _getRelevantDocuments(): Promise<Document[]> {
    return Promise.resolve(RAG.docs.map((d) => new Document({ pageContent: d.content, metadata: { id: d.id } })));
  }
}

interface ChatInput {
  question: string;
  history: Array<HumanMessage | AIMessage>;
}

let fake: FakeOpenAI;
let h: Harness;

beforeAll(async () => {
  fake = await startFakeOpenAI(() => RAG_REPLY);
  const instrumentation = new LangChainInstrumentation();
  h = startHarness({ instrumentations: [instrumentation] });
  instrumentation.manuallyInstrument(CallbackManagerModule);
  const prompt = ChatPromptTemplate.fromMessages([['system', 'Answer only from the context.\n{context}'], new MessagesPlaceholder('history'), ['human', '{question}']]);
  const llm = new ChatOpenAI({ model: 'gpt-4o-mini', apiKey: 'test', configuration: { baseURL: fake.baseURL } });
  const retriever = new FixedRetriever();
  const chain = RunnableSequence.from([
    {
      context: RunnableLambda.from((i: ChatInput) => i.question).pipe(retriever).pipe((docs: Document[]) => docs.map((d) => d.pageContent).join('\n')),
      question: (i: ChatInput) => i.question,
      history: (i: ChatInput) => i.history,
    },
    prompt,
    llm,
    new StringOutputParser(),
  ]);
  const answer = await context.with(setSession(context.active(), { sessionId: 'lc-session-5' }), () => chain.invoke({ question: RAG.query, history: [new HumanMessage(FIRST.q), new AIMessage(FIRST.a)] }));
  expect(answer).toBe(RAG.answer);
  await h.flush();
});

afterAll(async () => {
  await h?.shutdown();
  await fake?.close();
});

describe('conversation on OpenInference LangChain.js + setSession', () => {
  it('the ChatOpenAI triplet carries the session, turn 2 and the first exchange', () => {
    const t = triplets(h.outcomes).find((x) => x.conversation !== undefined);
    expectFollowUp(t, 'pseudonymised');
    expect(t?.conversation?.typedQuery).toBeUndefined();
  });
});

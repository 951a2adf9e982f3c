"""LangChain RAG service: InMemoryVectorStore over DeterministicFakeEmbedding, an LCEL chain
(retriever -> prompt with the context and the conversation so far -> ChatOpenAI -> parser)."""

from __future__ import annotations

from operator import itemgetter

from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import RunnablePassthrough
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_openai import ChatOpenAI

from common import DOCUMENTS, MODEL, SYSTEM_PROMPT, TOP_K, Answer, format_context, run

store = InMemoryVectorStore(DeterministicFakeEmbedding(size=64))
store.add_documents([Document(page_content=d["text"], id=d["id"], metadata={"source": d["id"]}) for d in DOCUMENTS])
retriever = store.as_retriever(search_kwargs={"k": TOP_K})

prompt = ChatPromptTemplate.from_messages([("system", SYSTEM_PROMPT), MessagesPlaceholder("history"), ("human", "{question}")])
# OPENAI_BASE_URL / OPENAI_API_KEY come from the environment.
llm = ChatOpenAI(model=MODEL, temperature=0)


def as_docs(docs: list[Document]) -> list[dict]:
    return [{"id": d.id, "text": d.page_content} for d in docs]


answer_chain = RunnablePassthrough.assign(context=lambda x: format_context(as_docs(x["docs"]))) | prompt | llm | StrOutputParser()
chain = RunnablePassthrough.assign(docs=itemgetter("question") | retriever).assign(answer=answer_chain)


def answer(question: str, history: list, stream: bool) -> Answer:
    messages = [HumanMessage(m["content"]) if m["role"] == "user" else AIMessage(m["content"]) for m in history]
    inputs = {"question": question, "history": messages}
    if not stream:
        out = chain.invoke(inputs)
        return Answer(out["answer"], as_docs(out["docs"]))
    text, docs = "", []
    for chunk in chain.stream(inputs):
        docs = chunk.get("docs", docs)
        text += chunk.get("answer", "")
    return Answer(text, as_docs(docs))


if __name__ == "__main__":
    run(answer)

"""LangChain RAG service: InMemoryVectorStore over DeterministicFakeEmbedding, an LCEL chain
(retriever -> prompt with the context and the conversation so far -> ChatOpenAI -> parser)."""

from __future__ import annotations

from common import Answer, DOCUMENTS, MODEL, SYSTEM_PROMPT, TOP_K, callbacks, format_context, run, setup

# Instrumentations set up in code start before the frameworks are imported.
setup()

from operator import itemgetter  # noqa: E402
from langchain_core.documents import Document  # noqa: E402
from langchain_core.embeddings import DeterministicFakeEmbedding  # noqa: E402
from langchain_core.messages import AIMessage, HumanMessage  # noqa: E402
from langchain_core.output_parsers import StrOutputParser  # noqa: E402
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder  # noqa: E402
from langchain_core.runnables import RunnablePassthrough  # noqa: E402
from langchain_core.vectorstores import InMemoryVectorStore  # noqa: E402
from langchain_openai import ChatOpenAI  # noqa: E402

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


def answer(question: str, history: list | None, stream: bool) -> Answer:
    messages = [HumanMessage(m["content"]) if m["role"] == "user" else AIMessage(m["content"]) for m in history or []]
    inputs = {"question": question, "history": messages}
    config = {"callbacks": callbacks()}
    if not stream:
        out = chain.invoke(inputs, config=config)
        return Answer(out["answer"], as_docs(out["docs"]))
    text, docs = "", []
    for chunk in chain.stream(inputs, config=config):
        docs = chunk.get("docs", docs)
        text += chunk.get("answer", "")
    return Answer(text, as_docs(docs))


def search(question: str) -> list[dict]:
    return as_docs(retriever.invoke(question, config={"callbacks": callbacks()}))


if __name__ == "__main__":
    run(answer, search)

"""LlamaIndex RAG service: a VectorStoreIndex in memory over the scenario's documents (embeddings from
the OpenAI-compatible server), a query engine for single questions (plain and streamed) and a context
chat engine for the conversation."""

from __future__ import annotations

from common import Answer, DOCUMENTS, MODEL, TOP_K, run, setup

# Instrumentations set up in code start before the frameworks are imported.
setup("llamaindex")

import os  # noqa: E402
from llama_index.core import Settings, VectorStoreIndex  # noqa: E402
from llama_index.core.llms import ChatMessage  # noqa: E402
from llama_index.core.schema import TextNode  # noqa: E402
from llama_index.embeddings.openai import OpenAIEmbedding  # noqa: E402
from llama_index.llms.openai import OpenAI  # noqa: E402

base, key = os.environ["OPENAI_BASE_URL"], os.environ["OPENAI_API_KEY"]
Settings.llm = OpenAI(model=MODEL, api_base=base, api_key=key, temperature=0)
Settings.embed_model = OpenAIEmbedding(model="text-embedding-3-small", api_base=base, api_key=key)
index = VectorStoreIndex([TextNode(id_=d["id"], text=d["text"]) for d in DOCUMENTS])


def sources(nodes) -> list[dict]:
    return [{"id": n.node.node_id, "text": n.node.get_content()} for n in nodes]


def answer(question: str, history: list | None, stream: bool) -> Answer:
    if history is not None:
        engine = index.as_chat_engine(chat_mode="context", similarity_top_k=TOP_K)
        out = engine.chat(question, chat_history=[ChatMessage(role=m["role"], content=m["content"]) for m in history])
        return Answer(out.response, sources(out.source_nodes))
    engine = index.as_query_engine(similarity_top_k=TOP_K, streaming=stream)
    out = engine.query(question)
    text = "".join(out.response_gen) if stream else str(out.response)
    return Answer(text, sources(out.source_nodes))


def search(question: str) -> list[dict]:
    return sources(index.as_retriever(similarity_top_k=TOP_K).retrieve(question))


if __name__ == "__main__":
    run(answer, search)

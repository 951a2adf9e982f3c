"""Haystack RAG service: InMemoryDocumentStore, InMemoryBM25Retriever, ChatPromptBuilder (the context,
then the conversation so far, then the question) and OpenAIChatGenerator, in one Pipeline."""

from __future__ import annotations

from common import Answer, DOCUMENTS, MODEL, TOP_K, instrumentation, run, setup

# Instrumentations set up in code start before the frameworks are imported.
setup()

from haystack import Document, Pipeline  # noqa: E402
from haystack.components.builders import ChatPromptBuilder  # noqa: E402
from haystack.components.generators.chat import OpenAIChatGenerator  # noqa: E402
from haystack.components.retrievers.in_memory import InMemoryBM25Retriever  # noqa: E402
from haystack.dataclasses import ChatMessage  # noqa: E402
from haystack.document_stores.in_memory import InMemoryDocumentStore  # noqa: E402

store = InMemoryDocumentStore()
store.write_documents([Document(id=d["id"], content=d["text"]) for d in DOCUMENTS])

SYSTEM = "Answer only from the context.\nContext:\n{% for d in documents %}[{{ d.id }}] {{ d.content }}\n{% endfor %}"

OpenTelemetryConnector = None
if instrumentation() == "haystack":
    # Haystack's own tracer, on the global TracerProvider that opentelemetry-instrument set up;
    # HAYSTACK_CONTENT_TRACING_ENABLED=true adds the components' inputs and outputs. Haystack 3: the
    # opentelemetry-haystack integration's connector in the pipeline. Haystack 2: built in, it turns
    # itself on when it finds a configured OpenTelemetry SDK.
    try:
        from haystack_integrations.components.connectors.opentelemetry import OpenTelemetryConnector
    except ImportError:
        pass

pipe = Pipeline()
if OpenTelemetryConnector is not None:
    pipe.add_component("tracer", OpenTelemetryConnector())
pipe.add_component("retriever", InMemoryBM25Retriever(document_store=store, top_k=TOP_K))
pipe.add_component("prompt_builder", ChatPromptBuilder(variables=["documents"], required_variables=["documents"]))
# OPENAI_BASE_URL / OPENAI_API_KEY come from the environment.
pipe.add_component("llm", OpenAIChatGenerator(model=MODEL, generation_kwargs={"temperature": 0}))
pipe.connect("retriever.documents", "prompt_builder.documents")
pipe.connect("prompt_builder.prompt", "llm.messages")

# A search endpoint: the retriever alone.
search_pipe = Pipeline()
search_pipe.add_component("retriever", InMemoryBM25Retriever(document_store=store, top_k=TOP_K))
if OpenTelemetryConnector is not None:
    search_pipe.add_component("tracer", OpenTelemetryConnector())


def message(m: dict) -> ChatMessage:
    return ChatMessage.from_user(m["content"]) if m["role"] == "user" else ChatMessage.from_assistant(m["content"])


def answer(question: str, history: list | None, stream: bool) -> Answer:
    template = [ChatMessage.from_system(SYSTEM), *[message(m) for m in history or []], ChatMessage.from_user(question)]
    chunks: list[str] = []
    llm_args = {"streaming_callback": lambda c: chunks.append(c.content or "")} if stream else {}
    out = pipe.run({"retriever": {"query": question}, "prompt_builder": {"template": template}, "llm": llm_args}, include_outputs_from={"retriever"})
    docs = [{"id": d.id, "text": d.content} for d in out["retriever"]["documents"]]
    text = out["llm"]["replies"][0].text or ""
    if stream and "".join(chunks) != text:
        raise SystemExit(f"streamed chunks {''.join(chunks)!r} differ from the reply {text!r}")
    return Answer(text, docs)


def search(question: str) -> list[dict]:
    return [{"id": d.id, "text": d.content} for d in search_pipe.run({"retriever": {"query": question}})["retriever"]["documents"]]


if __name__ == "__main__":
    run(answer, search)

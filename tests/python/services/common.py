"""Shared driver of the RAG test services (tests/python/services/rag_*.py).

Each service is a small but real RAG pipeline of one framework. It answers the turns of
scenario.json through an OpenAI-compatible server (OPENAI_BASE_URL: the test's fake) and prints,
per answered turn, one line `RAGWATCH-REPORT {json}` on stdout: the question, the documents its
retriever really returned (id, text) and the answer it really received. The tests compare what
ragwatch captured with these reports.

Scenarios (argv[1], comma-separated; default answer,stream,chat): `answer` (one question, plain call),
`stream` (one question, streamed), `chat` (two turns of one conversation, the second with the first in
its history, under the conversation id RAG_SESSION_ID when the instrumentation has a way to say it),
`search` (the retriever alone, no model call: a request that must give no triplet).

RAG_INSTRUMENTATION names the instrumentation set the process runs under (openinference,
traceloop, genai, langfuse, haystack): it decides how the conversation id is set, the way that
library's users set it.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Callable, Iterator, NamedTuple

SCENARIO = json.loads((Path(__file__).parent / "scenario.json").read_text(encoding="utf-8"))
DOCUMENTS: list[dict] = SCENARIO["documents"]
TOP_K: int = SCENARIO["topK"]
MODEL: str = SCENARIO["model"]
SYSTEM_PROMPT = "Answer only from the context.\nContext:\n{context}"


class Answer(NamedTuple):
    text: str
    sources: list[dict]


# (question, earlier turns as [{"role", "content"}] in the chat scenario else None, stream) -> Answer
Pipeline = Callable[[str, "list | None", bool], Answer]


def format_context(docs: list[dict]) -> str:
    """The context block of the prompt: one `[id] text` line per document."""
    return "\n".join(f"[{d['id']}] {d['text']}" for d in docs)


def instrumentation() -> str:
    return os.environ.get("RAG_INSTRUMENTATION", "")


_set_up = False


def setup(framework: str = "") -> None:
    """Starts the instrumentations that are set up in code (the others come from opentelemetry-instrument),
    as their users do: once, at start, before the frameworks are imported."""
    global _set_up
    if _set_up:
        return
    _set_up = True
    kind = instrumentation()
    if kind == "openinference" and framework == "llamaindex":
        # opentelemetry-instrument skips openinference-instrumentation-llama-index 4.6.1 unless
        # llama-index-multi-modal-llms-openai is installed (its `instruments` extra names it, and the
        # `llama-index` package no longer brings it): instrumented in code, as Arize's docs show.
        from openinference.instrumentation.llama_index import LlamaIndexInstrumentor

        LlamaIndexInstrumentor().instrument()
    elif kind == "traceloop":
        from traceloop.sdk import Traceloop

        # TRACELOOP_BASE_URL: http://host:4318 (OTLP/HTTP) or grpc://host:4317 (OTLP/gRPC).
        Traceloop.init(app_name=os.environ.get("OTEL_SERVICE_NAME", "rag-service"), telemetry_enabled=False)
    elif kind == "langfuse":
        from langfuse import Langfuse

        if os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL") == "grpc":
            # Langfuse exports OTLP/HTTP; an OTLP/gRPC exporter can be handed to it instead.
            from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

            Langfuse(span_exporter=OTLPSpanExporter(insecure=True))
        else:
            # LANGFUSE_BASE_URL=http://host:4318 with LANGFUSE_OTEL_TRACES_EXPORT_PATH=v1/traces.
            Langfuse()


def callbacks() -> list:
    """LangChain callback handlers the library asks its users to pass (Langfuse's); none for the others."""
    if instrumentation() == "langfuse":
        from langfuse.langchain import CallbackHandler

        return [CallbackHandler()]
    return []


def shutdown() -> None:
    """Flushes the exporters that are not opentelemetry-instrument's (it flushes its own at exit)."""
    kind = instrumentation()
    if kind == "langfuse":
        from langfuse import get_client

        get_client().shutdown()


def traced_retrieval(fn: Callable) -> Callable:
    """Marks an app's own retrieval function the way each library's users do (where it has a way)."""
    kind = instrumentation()
    if kind == "traceloop":
        from traceloop.sdk.decorators import task

        return task(name="retrieve_documents")(fn)
    if kind == "langfuse":
        from langfuse import observe

        return observe(name="retrieve", as_type="retriever")(fn)
    return fn


def traced_turn(fn: Callable) -> Callable:
    """Marks an app's own request handler the way each library's users do (where it has a way)."""
    kind = instrumentation()
    if kind == "traceloop":
        from traceloop.sdk.decorators import workflow

        return workflow(name="rag_turn")(fn)
    if kind == "langfuse":
        from langfuse import observe

        return observe(name="rag-turn")(fn)
    return fn


@contextlib.contextmanager
def conversation(session_id: str) -> Iterator[None]:
    """Marks the turns inside as one conversation, the way users of each library do."""
    kind = instrumentation()
    if kind == "openinference":
        from openinference.instrumentation import using_session

        with using_session(session_id):
            yield
    elif kind == "traceloop":
        from traceloop.sdk import Traceloop

        Traceloop.set_association_properties({"session_id": session_id})
        yield
    elif kind == "langfuse":
        from langfuse import propagate_attributes

        with propagate_attributes(session_id=session_id):
            yield
    elif kind == "genai":
        # The OpenAI instrumentation has no conversation of its own: the app names it on its span.
        from opentelemetry import trace

        with trace.get_tracer("rag-service").start_as_current_span("chat turn", attributes={"gen_ai.conversation.id": session_id}):
            yield
    else:
        yield


def report(scenario: str, turn: int, question: str, answer: Answer, stream: bool) -> None:
    line = {"scenario": scenario, "turn": turn, "question": question, "answer": answer.text, "sources": answer.sources, "stream": stream}
    print("RAGWATCH-REPORT " + json.dumps(line), flush=True)


def run(pipeline: Pipeline, search: Callable[[str], list] | None = None, wrap: Callable[[str, Callable[[], Answer]], Answer] | None = None) -> None:
    """Answers the scenarios named on the command line; `search(question)` is the retriever alone;
    `wrap(name, call)` runs each turn (e.g. in an app span)."""
    setup()
    wanted = sys.argv[1].split(",") if len(sys.argv) > 1 and sys.argv[1] else ["answer", "stream", "chat"]
    call = wrap or (lambda _name, fn: fn())
    turns = SCENARIO["turns"]
    for name in wanted:
        if name in ("answer", "stream"):
            q = turns[name]["question"]
            report(name, 1, q, call(name, lambda: pipeline(q, None, name == "stream")), name == "stream")
        elif name == "chat":
            history: list[dict] = []
            with conversation(os.environ.get("RAG_SESSION_ID", "conversation-1")):
                for i, t in enumerate(turns["chat"], start=1):
                    q = t["question"]
                    a = call(name, lambda: pipeline(q, list(history), False))
                    report(name, i, q, a, False)
                    history += [{"role": "user", "content": q}, {"role": "assistant", "content": a.text}]
        elif name == "search" and search is not None:
            q = turns["search"]["question"]
            report(name, 1, q, Answer("", search(q)), False)
        else:
            raise SystemExit(f"unknown scenario {name!r} (answer, stream, chat, search)")
    shutdown()

"""Shared driver of the RAG test services (tests/python/services/rag_*.py).

Each service is a small but real RAG pipeline of one framework. It answers the turns of
scenario.json through an OpenAI-compatible server (OPENAI_BASE_URL: the test's fake) and prints,
per answered turn, one line `RAGWATCH-REPORT {json}` on stdout: the question, the documents its
retriever really returned (id, text) and the answer it really received. The tests compare what
ragwatch captured with these reports.

Scenarios (argv[1], comma-separated; default all): `answer` (one question, plain call), `stream`
(one question, streamed), `chat` (two turns of one conversation, the second with the first in its
history, under the conversation id RAG_SESSION_ID when the instrumentation has a way to say it).

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


# (question, earlier turns as [{"role", "content"}], stream) -> Answer
Pipeline = Callable[[str, list, bool], Answer]


def format_context(docs: list[dict]) -> str:
    """The context block of the prompt: one `[id] text` line per document."""
    return "\n".join(f"[{d['id']}] {d['text']}" for d in docs)


def instrumentation() -> str:
    return os.environ.get("RAG_INSTRUMENTATION", "")


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


def run(pipeline: Pipeline, wrap: Callable[[str, Callable[[], Answer]], Answer] | None = None) -> None:
    """Answers the scenarios named on the command line; `wrap(name, call)` runs each turn (e.g. in an app span)."""
    wanted = sys.argv[1].split(",") if len(sys.argv) > 1 and sys.argv[1] else ["answer", "stream", "chat"]
    call = wrap or (lambda _name, fn: fn())
    turns = SCENARIO["turns"]
    for name in wanted:
        if name in ("answer", "stream"):
            q = turns[name]["question"]
            report(name, 1, q, call(name, lambda: pipeline(q, [], name == "stream")), name == "stream")
        elif name == "chat":
            history: list[dict] = []
            with conversation(os.environ.get("RAG_SESSION_ID", "conversation-1")):
                for i, t in enumerate(turns["chat"], start=1):
                    q = t["question"]
                    a = call(name, lambda: pipeline(q, list(history), False))
                    report(name, i, q, a, False)
                    history += [{"role": "user", "content": q}, {"role": "assistant", "content": a.text}]
        else:
            raise SystemExit(f"unknown scenario {name!r} (answer, stream, chat)")

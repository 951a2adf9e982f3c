"""Plain OpenAI SDK RAG service: the app ranks the documents itself (word overlap) and puts the
best ones into the system prompt; no framework, no retriever span unless the library has a way
for the app to mark its retrieval (Traceloop @task, Langfuse @observe)."""

from __future__ import annotations

from common import Answer, DOCUMENTS, MODEL, SYSTEM_PROMPT, TOP_K, format_context, instrumentation, run, setup, traced_retrieval, traced_turn

# Instrumentations set up in code start before the frameworks are imported.
setup()

import os  # noqa: E402
import re  # noqa: E402

if instrumentation() == "langfuse":
    from langfuse.openai import OpenAI  # Langfuse's drop-in client
else:
    from openai import OpenAI

WORD = re.compile(r"[a-z0-9]+")
STOP = {"the", "a", "an", "of", "is", "was", "what", "who", "when", "how", "in", "it", "its", "made", "for", "and", "to"}


def words(text: str) -> set[str]:
    return {w for w in WORD.findall(text.lower()) if w not in STOP}


@traced_retrieval
def retrieve(query: str) -> list[dict]:
    q = words(query)
    ranked = sorted(DOCUMENTS, key=lambda d: -len(q & words(d["text"])))
    return [{"id": d["id"], "text": d["text"]} for d in ranked[:TOP_K]]


client = OpenAI(base_url=os.environ["OPENAI_BASE_URL"])


@traced_turn
def answer(question: str, history: list | None, stream: bool) -> Answer:
    docs = retrieve(question)
    messages = [{"role": "system", "content": SYSTEM_PROMPT.format(context=format_context(docs))}, *(history or []), {"role": "user", "content": question}]
    if not stream:
        out = client.chat.completions.create(model=MODEL, messages=messages, temperature=0)
        return Answer(out.choices[0].message.content or "", docs)
    text = ""
    for chunk in client.chat.completions.create(model=MODEL, messages=messages, temperature=0, stream=True, stream_options={"include_usage": True}):
        if chunk.choices and chunk.choices[0].delta.content:
            text += chunk.choices[0].delta.content
    return Answer(text, docs)


if __name__ == "__main__":
    run(answer, retrieve)

"""RAGAS (ragas 0.4.3, its own pinned environment: bench/peers/setup.sh) on the peer bench's triplets.

Reads JSON lines {id, question, contexts, answer} from stdin as they come (the harness sends the next
triplet after the answer to the last, so tools can take turns row by row); writes one JSON line per
triplet to stdout: {id, faithfulness, answer_relevancy, errors}. Metrics: Faithfulness and AnswerRelevancy (RAGAS's
ResponseRelevancy, strictness 3) from ragas.metrics.collections, the LLM through RAGAS's own
llm_factory (instructor, JSON mode) on an OpenAI client at --base-url, the embeddings through its
embedding_factory on the same base URL. Triplets one after another (the server runs one request at a
time); a metric that raises is recorded as an error for that triplet, never retried here.
"""
import argparse, asyncio, json, os, sys, time

os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")

from openai import AsyncOpenAI  # noqa: E402
from ragas.embeddings.base import embedding_factory  # noqa: E402
from ragas.llms.base import llm_factory  # noqa: E402
from ragas.metrics.collections import AnswerRelevancy, Faithfulness  # noqa: E402


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base-url", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--timeout", type=float, default=1800)
    a = ap.parse_args()
    client = AsyncOpenAI(base_url=a.base_url, api_key="peer-bench", timeout=a.timeout, max_retries=0)
    llm = llm_factory(a.model, client=client)
    embeddings = embedding_factory("openai", model="ragwatch-bundled", client=client)
    faithfulness = Faithfulness(llm=llm)
    relevancy = AnswerRelevancy(llm=llm, embeddings=embeddings)
    while line := sys.stdin.readline():
        if not line.strip():
            continue
        t = json.loads(line)
        out = {"id": t["id"], "errors": {}}
        for name, metric, kwargs in (
            ("faithfulness", faithfulness, dict(user_input=t["question"], response=t["answer"], retrieved_contexts=t["contexts"])),
            ("answer_relevancy", relevancy, dict(user_input=t["question"], response=t["answer"])),
        ):
            started = time.monotonic()
            try:
                r = await metric.ascore(**kwargs)
                v = r.value
                out[name] = None if v is None or v != v else float(v)
            except Exception as e:  # noqa: BLE001 - every failure is a failed judgment, recorded
                out[name] = None
                out["errors"][name] = f"{type(e).__name__}: {str(e)[:300]}"
            out[f"{name}_s"] = round(time.monotonic() - started, 2)
        print(json.dumps(out), flush=True)


asyncio.run(main())

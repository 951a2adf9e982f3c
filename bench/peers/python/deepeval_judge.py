"""DeepEval (deepeval 4.3.1, its own pinned environment: bench/peers/setup.sh) on the peer bench's triplets.

Reads JSON lines {id, question, contexts, answer} from stdin as they come (the harness sends the next
triplet after the answer to the last, so tools can take turns row by row); writes one JSON line per
triplet to stdout: {id, faithfulness, answer_relevancy, errors}. Metrics: FaithfulnessMetric and
AnswerRelevancyMetric with their defaults (threshold 0.5, include_reason=True), the LLM through
DeepEval's LocalModel (its documented client for OpenAI-compatible local servers) at --base-url.
Triplets one after another, synchronous measure() (the server runs one request at a time); DeepEval's
own retry policy applies; a metric that still raises is recorded as an error for that triplet.
"""
import argparse, json, os, sys, time

os.environ.setdefault("DEEPEVAL_TELEMETRY_OPT_OUT", "1")
os.environ.setdefault("DEEPEVAL_UPDATE_WARNING_OPT_IN", "0")
# DeepEval gives each metric 180 s by default (all its attempts together), which a 1.5B model on two CPU
# cores passes when the machine is busy: the same 30 minutes the other tools' clients get (--timeout).
os.environ.setdefault("DEEPEVAL_PER_TASK_TIMEOUT_SECONDS_OVERRIDE", "1800")

from deepeval.metrics import AnswerRelevancyMetric, FaithfulnessMetric  # noqa: E402
from deepeval.models.llms.local_model import LocalModel  # noqa: E402
from deepeval.test_case import LLMTestCase  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base-url", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--timeout", type=float, default=1800)
    a = ap.parse_args()
    model = LocalModel(model=a.model, base_url=a.base_url, api_key="peer-bench", timeout=a.timeout)
    while line := sys.stdin.readline():
        if not line.strip():
            continue
        t = json.loads(line)
        case = LLMTestCase(input=t["question"], actual_output=t["answer"], retrieval_context=t["contexts"])
        out = {"id": t["id"], "errors": {}}
        for name, metric in (
            ("faithfulness", FaithfulnessMetric(model=model, async_mode=False)),
            ("answer_relevancy", AnswerRelevancyMetric(model=model, async_mode=False)),
        ):
            started = time.monotonic()
            try:
                v = metric.measure(case)
                out[name] = None if v is None or v != v else float(v)
            except Exception as e:  # noqa: BLE001 - every failure is a failed judgment, recorded
                out[name] = None
                out["errors"][name] = f"{type(e).__name__}: {str(e)[:300]}"
            out[f"{name}_s"] = round(time.monotonic() - started, 2)
        print(json.dumps(out), flush=True)


main()

/**
 * The LLM judge through a real OpenAI-compatible server (issue 51): HaluEval QA development triplets
 * (each row's right and hallucinated answer, label 1 / 0) scored by `createJudge` with only the base URL
 * and the model name configured — every other setting at its default. Prints, as JSON lines: per
 * triplet (also appended to `--out` as it goes), then the summary: share scored, failures by reason,
 * the steps' answers valid on the first try / after the repair, the endpoint adaptations, calls, tokens
 * and seconds per triplet, and the AUC of faithfulness / groundedness / hallucination_free against the
 * labels, on all pairs and on length-matched pairs (answers within 3 characters, DESIGN §24) next to
 * what length alone scores there.
 *
 *   bash tests/python/llama-server/setup.sh   # then start the server, e.g.
 *   $VENV/bin/python -m llama_cpp.server --model $(bash scripts/models/fetch-test-model.sh) --model_alias qwen --port 18123 --n_ctx 4096
 *   node scripts/llm-judge-real.ts --base-url http://127.0.0.1:18123/v1 --model qwen [--pairs 50] [--offset 0] [--out results.jsonl]
 *   node scripts/llm-judge-real.ts --summarize results.jsonl   # the summary again from the per-triplet lines
 *     (of a killed run too; without the step counters, which live in the judging process: SIGINT or SIGTERM
 *     stops a judging run after the triplets in flight and prints the summary with them)
 *
 * Tune only on qa_one_turn.jsonl; qa_multi_turn.jsonl is the held-out set.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { aucWithInterval } from '../src/calibration/measures.ts';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config/load.ts';
import { createJudge } from '../src/judges/create.ts';
import { createInstruments } from '../src/telemetry/instruments.ts';
import type { SampledTriplet } from '../src/triplet.ts';

const { values } = parseArgs({
  options: {
    'base-url': { type: 'string' },
    model: { type: 'string' },
    file: { type: 'string', default: new URL('../../shared/data/halueval/qa_one_turn.jsonl', import.meta.url).pathname },
    pairs: { type: 'string', default: '50' },
    offset: { type: 'string', default: '0' },
    out: { type: 'string' },
    summarize: { type: 'string' },
  },
});
if (values.summarize === undefined && (!values['base-url'] || !values.model)) throw new Error('--base-url and --model are required (or --summarize FILE)');
if (values.file.includes('multi_turn')) process.stderr.write('warning: qa_multi_turn is the held-out set; never tune on it\n');

interface Row { knowledge: string; question: string; right_answer: string; hallucinated_answer: string }
/** One judged triplet, as printed and appended to `--out`. */
interface Result { row: number; label: 0 | 1; chars: number; ok: boolean; reason?: string; error?: string; scores?: Record<string, number>; skipped?: Record<string, string>; calls: number; inputTokens: number; outputTokens: number; seconds: number }
type Counts = Record<string, number>;
/** What only the judging process knows: its counters by label, and its wall time. */
interface Live { wallSeconds: number; answers: Counts; stepFailures: Counts; requests: Counts; adaptations: Counts }

const triplet = (id: string, q: string, k: string, a: string): SampledTriplet => ({
  id, traceId: id, spanId: 's', service: 'halueval', timestamp: new Date(0).toISOString(), query: q,
  sources: [{ content: k }], response: a, latency: { durationMs: 0 }, convention: 'custom', sampling: { weight: 1, stratum: 'all', rule: 'all' },
});

async function judgeRows(): Promise<{ results: Result[]; live: Live }> {
  const offset = Number(values.offset);
  const rows = readFileSync(values.file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Row).slice(offset, offset + Number(values.pairs));
  // Only the endpoint and the model: nothing else tuned by hand.
  const config = loadConfig({ env: {}, overrides: { judge: { baseUrl: values['base-url'], model: values.model }, metrics: { processMetrics: false } } });
  const instruments = createInstruments({ processMetrics: false });
  const judge = createJudge(config, { instruments });
  await judge.init();
  const items = rows.flatMap((r, i) => [
    { row: offset + i, label: 1 as const, t: triplet(`r${offset + i}`, r.question, r.knowledge, r.right_answer) },
    { row: offset + i, label: 0 as const, t: triplet(`h${offset + i}`, r.question, r.knowledge, r.hallucinated_answer) },
  ]);
  const results: Result[] = [];
  const started = performance.now();
  let next = 0;
  // SIGINT / SIGTERM: start no more triplets, finish those in flight, print the summary with the counters.
  let stopping = false;
  const stop = () => {
    stopping = true;
    process.stderr.write('stopping: finishing the triplets in flight, then the summary\n');
  };
  process.once('SIGINT', stop).once('SIGTERM', stop);
  // As the scorer runs them: judge.concurrency triplets at once (default 2).
  async function worker(): Promise<void> {
    while (next < items.length && !stopping) {
      const item = items[next++]!;
      const t0 = performance.now();
      const r = await judge.score(item.t);
      const base = { row: item.row, label: item.label, chars: item.t.response.length, seconds: +((performance.now() - t0) / 1000).toFixed(2) };
      const res: Result = r.ok
        ? { ...base, ok: true, scores: r.scores, skipped: r.skipped, calls: r.usage.calls, inputTokens: r.usage.inputTokens, outputTokens: r.usage.outputTokens }
        : { ...base, ok: false, reason: r.error.code, error: r.error.message.slice(0, 300), calls: 0, inputTokens: 0, outputTokens: 0 };
      results.push(res);
      const line = JSON.stringify(res);
      console.log(line);
      if (values.out) appendFileSync(values.out, line + '\n');
    }
  }
  await Promise.all(Array.from({ length: config.judge.concurrency }, worker));
  const wallSeconds = (performance.now() - started) / 1000;
  await judge.shutdown();
  const counts = async (metric: { get(): Promise<{ values: Array<{ labels: Record<string, unknown>; value: number }> }> }) => Object.fromEntries((await metric.get()).values.map((v) => [Object.values(v.labels).join('/'), v.value]));
  return { results, live: { wallSeconds, answers: await counts(instruments.judgeAnswers), stepFailures: await counts(instruments.judgeFailures), requests: await counts(instruments.judgeRequests), adaptations: await counts(instruments.judgeAdaptations) } };
}

/** AUC with its 95 % DeLong interval (3 decimals); null without both classes. */
function aucOf(scores: number[], labels: (0 | 1)[]): { auc: number; ci95: [number, number] | null } | null {
  const a = aucWithInterval(scores, labels);
  if (!a) return null;
  const r = (x: number) => +x.toFixed(3);
  return { auc: r(a.auc), ci95: a.lower === null || a.upper === null ? null : [r(a.lower), r(a.upper)] };
}

function summary(results: Result[], live: Live | undefined): Record<string, unknown> {
  const byRow = new Map<number, Result[]>();
  for (const r of results) byRow.set(r.row, [...(byRow.get(r.row) ?? []), r]);
  const matched = new Set([...byRow].filter(([, rs]) => rs.length === 2 && Math.abs(rs[0]!.chars - rs[1]!.chars) <= 3).map(([row]) => row));
  const metricAuc = (subset: Result[], metric: string) => {
    const scored = subset.filter((r) => r.scores?.[metric] !== undefined);
    return { ...aucOf(scored.map((r) => r.scores![metric]!), scored.map((r) => r.label)), scored: scored.length };
  };
  const report = (subset: Result[]) => ({
    triplets: subset.length,
    length_alone: aucOf(subset.map((r) => -r.chars), subset.map((r) => r.label)),
    ...Object.fromEntries(['faithfulness', 'groundedness', 'hallucination_free', 'response_precision'].map((m) => [m, metricAuc(subset, m)])),
  });
  const ok = results.filter((r) => r.ok);
  const sum = (f: (r: Result) => number) => ok.reduce((a, r) => a + f(r), 0);
  const failures: Counts = {};
  for (const r of results) if (!r.ok) failures[r.reason!] = (failures[r.reason!] ?? 0) + 1;
  const steps = { first: 0, repaired: 0, invalid: 0 };
  for (const [k, n] of Object.entries(live?.answers ?? {})) {
    if (k.endsWith('/valid_first_try')) steps.first += n;
    else if (k.endsWith('/valid_after_repair')) steps.repaired += n;
    else steps.invalid += n;
  }
  const answered = steps.first + steps.repaired + steps.invalid;
  const seconds = results.map((r) => r.seconds).sort((a, b) => a - b);
  return {
    summary: true,
    file: values.file.split('/').pop(),
    rows: `${Math.min(...byRow.keys())}..${Math.max(...byRow.keys())}`,
    triplets: results.length,
    scored: ok.length,
    scored_share: +(ok.length / results.length).toFixed(3),
    failed_by_reason: failures,
    ...(live
      ? {
          step_answers: live.answers,
          valid_first_try_share: answered ? +(steps.first / answered).toFixed(3) : null,
          valid_after_repair_share: answered ? +((steps.first + steps.repaired) / answered).toFixed(3) : null,
          step_failures: live.stepFailures,
          requests: live.requests,
          adaptations: live.adaptations,
          seconds_per_triplet_wall: +(live.wallSeconds / results.length).toFixed(1),
        }
      : { step_counters: 'not in the per-triplet lines: only a judging run prints them' }),
    calls_per_scored_triplet: ok.length ? +(sum((r) => r.calls) / ok.length).toFixed(2) : null,
    input_tokens_per_scored_triplet: ok.length ? Math.round(sum((r) => r.inputTokens) / ok.length) : null,
    output_tokens_per_scored_triplet: ok.length ? Math.round(sum((r) => r.outputTokens) / ok.length) : null,
    seconds_per_triplet_p50: seconds.length ? +seconds[Math.floor(seconds.length / 2)]!.toFixed(1) : null,
    all: report(results),
    length_matched_3chars: report(results.filter((r) => matched.has(r.row))),
  };
}

if (values.summarize !== undefined) {
  const results = readFileSync(values.summarize, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Result);
  console.log(JSON.stringify(summary(results, undefined)));
} else {
  const { results, live } = await judgeRows();
  console.log(JSON.stringify(summary(results, live)));
}

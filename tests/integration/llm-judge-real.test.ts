/**
 * The LLM judge on a real model (issue 51): llama.cpp's OpenAI-compatible server (llama-cpp-python
 * [server], built once by tests/python/llama-server/setup.sh) serving the 1.5B test model
 * (Qwen2.5-Coder-1.5B-Instruct Q4_K_M) on loopback, with only the base URL and the model name
 * configured. The server refuses `json_schema` (HTTP 500): the client must adapt once and go on.
 * Whatever the model answers, every result is a score in [0,1], a metric skipped with its reason, or a
 * failure counted by reason — never a silent gap and never a made-up score. Covered: THELMA's metrics
 * and faithfulness on HaluEval development triplets, an `llm` evaluator of each output type, a probe's
 * `match: judge`, and exam generation. Cost on 2 cores: docs/testing.md.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { generateExam } from '../../src/exams/generate.ts';
import { createEvaluatorJudge, createJudge } from '../../src/judges/create.ts';
import type { LlmEvaluator } from '../../src/judges/llm/evaluator-step.ts';
import { llmClientOf } from '../../src/probes/judge-match.ts';
import { runStep } from '../../src/judges/llm/step.ts';
import { sameAnswerStep } from '../../src/judges/llm/steps.ts';
import { createInstruments, type Instruments } from '../../src/telemetry/instruments.ts';
import type { JudgeResult } from '../../src/judges/types.ts';
import type { SampledTriplet } from '../../src/triplet.ts';
import { llamaServerVenv, startLlamaServer, type LlamaServer } from '../helpers/llama-server.ts';
import { testModel } from '../helpers/test-model.ts';

const SUITE = 'LLM judge on a real local server';
const modelPath = testModel(SUITE);
const venv = modelPath ? llamaServerVenv(SUITE) : undefined;
const MINUTES = 60_000;

interface Row { knowledge: string; question: string; right_answer: string; hallucinated_answer: string }
// The shortest row of the development file's first 300 (kept in the repository for the demo; the CI
// budget allows one pair: scripts/llm-judge-real.ts measures 100 triplets).
const rows = readFileSync(new URL('../../scripts/data/halueval-qa-sample.jsonl', import.meta.url), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Row);
const shortest = [...rows].sort((a, b) => a.knowledge.length + a.question.length - (b.knowledge.length + b.question.length))[0]!;

const triplet = (id: string, row: Row, response: string): SampledTriplet => ({
  id, traceId: id, spanId: 's', service: 'halueval', timestamp: new Date(0).toISOString(), query: row.question,
  sources: [{ content: row.knowledge }], response, latency: { durationMs: 0 }, convention: 'custom', sampling: { weight: 1, stratum: 'all', rule: 'all' },
});

async function total(metric: Instruments['judgeFailures'] | Instruments['judgeAnswers'] | Instruments['judgeAdaptations'], labels: Record<string, string> = {}): Promise<number> {
  const { values } = (await metric.get()) as { values: Array<{ labels: Record<string, unknown>; value: number }> };
  return values.filter((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want)).reduce((a, v) => a + v.value, 0);
}

/** A result is scores in [0,1] with skips named, or a failure with a stable code. */
function expectScoredOrCounted(r: JudgeResult): void {
  if (!r.ok) {
    expect(r.error.code).toMatch(/^RAGWATCH_JUDGE_/);
    return;
  }
  for (const [metric, v] of Object.entries(r.scores)) {
    expect(Number.isFinite(v), metric).toBe(true);
    expect(v).toBeGreaterThanOrEqual(0);
    expect(v).toBeLessThanOrEqual(1);
  }
  for (const reason of Object.values(r.skipped)) expect(reason).toMatch(/^[a-z_]+$/);
}

describe.skipIf(venv === undefined)(SUITE, () => {
  let server: LlamaServer;
  const config = () => loadConfig({ env: {}, overrides: { judge: { baseUrl: server.baseUrl, model: server.model }, metrics: { processMetrics: false } } });

  beforeAll(async () => {
    server = await startLlamaServer({ venv: venv!, modelPath: modelPath!, ctxSize: 4096 });
  }, 5 * MINUTES);
  afterAll(() => server?.stop());

  it('scores a right and a hallucinated HaluEval answer with only the base URL and model set, adapting once to the server', async () => {
    const instruments = createInstruments({ processMetrics: false });
    const judge = createJudge(config(), { instruments });
    await judge.init();
    const results = [await judge.score(triplet('right', shortest, shortest.right_answer)), await judge.score(triplet('hallucinated', shortest, shortest.hallucinated_answer))];
    await judge.shutdown();
    for (const r of results) expectScoredOrCounted(r);
    const failed = results.filter((r) => !r.ok).length;
    // Each failed triplet has a counted step failure with its reason.
    expect(await total(instruments.judgeFailures)).toBeGreaterThanOrEqual(failed);
    expect(await total(instruments.judgeAdaptations, { change: 'output:json_object_schema' })).toBe(1);
    expect(await total(instruments.judgeAnswers, { outcome: 'valid_first_try' }) + (await total(instruments.judgeAnswers, { outcome: 'valid_after_repair' }))).toBeGreaterThan(0);
    console.log(JSON.stringify({ halueval: results.map((r) => (r.ok ? { scores: r.scores, skipped: r.skipped, usage: r.usage } : { failed: r.error.code, why: r.error.message })) }));
    // Two answers took over 30 min on 2 cores shared with other sessions (docs/testing.md).
  }, 60 * MINUTES);

  it('judges an llm evaluator of each output type (boolean, categorical, score)', async () => {
    const evaluators: LlmEvaluator[] = [
      { name: 'states_a_year', description: 'The answer states a year.', rubric: 'Pass if the RESPONSE states a year (four digits); fail otherwise.', inputs: ['response'], output: { type: 'boolean' } },
      { name: 'answer_tone', description: 'The tone of the answer.', rubric: 'How does the RESPONSE address the user?', inputs: ['response'], output: { type: 'categorical', labels: [{ label: 'courteous', value: 1 }, { label: 'neutral', value: 0.5 }, { label: 'rude', value: 0 }] } },
      { name: 'on_topic', description: 'The answer stays on the question.', rubric: 'How much of the RESPONSE is about the QUERY (0 = nothing, 1 = all of it)?', inputs: ['query', 'response'], output: { type: 'score' } },
    ];
    const c = loadConfig({ env: {}, overrides: { judge: { baseUrl: server.baseUrl, model: server.model }, evaluators: evaluators.map((e) => ({ ...e, kind: 'llm' })), metrics: { processMetrics: false } } });
    const instruments = createInstruments({ processMetrics: false });
    const judge = createEvaluatorJudge(c, { instruments })!;
    const r = await judge.judge({ query: 'When was the Chimnabai Clock Tower completed?', response: 'It was completed in 1896.', sources: [], history: [] }, { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 });
    if (!r.ok) {
      expect(r.error.code).toMatch(/^RAGWATCH_JUDGE_/);
      expect(await total(instruments.judgeFailures, { step: 'evaluators' })).toBeGreaterThan(0);
      return;
    }
    for (const e of evaluators) {
      if (r.skipped[e.name] !== undefined) expect(r.skipped[e.name]).toMatch(/^(malformed_output|judge_error)$/);
      else expect(r.scores[e.name]!).toSatisfy((v: number) => v >= 0 && v <= 1);
    }
    console.log(JSON.stringify({ evaluators: r }));
  }, 15 * MINUTES);

  it("grades a probe's answer with match: judge", async () => {
    const client = llmClientOf(config());
    const usage = { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 };
    const same = await runStep(client, sameAnswerStep('Which department does Alice Martin work in?', ['Finance'], 'Alice Martin is in the Finance department.'), usage);
    const other = await runStep(client, sameAnswerStep('Which department does Alice Martin work in?', ['Finance'], 'She works in Legal.'), usage);
    for (const r of [same, other]) if (!r.ok) expect(r.error.code).toMatch(/^RAGWATCH_JUDGE_/);
    // A verdict, when there is one, is a boolean; the model's accuracy is measured, not asserted here.
    if (same.ok) expect(typeof same.value).toBe('boolean');
    console.log(JSON.stringify({ probeJudge: { same: same.ok ? same.value : same.error.code, other: other.ok ? other.value : other.error.code } }));
  }, 10 * MINUTES);

  it('generates an exam from a document (kept questions are well formed; drops are counted)', async () => {
    const client = llmClientOf(config());
    const doc = { id: 'd1', content: 'The Chimnabai Clock Tower in Vadodara was completed in 1896. It was named after Chimnabai I, a queen of Baroda State, and inaugurated by Mir Kamaluddin Hussainkhan, the last Nawab of Baroda. The tower is built in the Indo-Saracenic style.' };
    const { exam, report } = await generateExam('clock-tower', [doc], { client, domain: 'local history', concurrency: 1 });
    expect(report.documents).toBe(1);
    expect(report.kept + Object.values(report.dropped).reduce((a, n) => a + n, 0) + (report.drafted === 0 ? 1 : 0)).toBeGreaterThanOrEqual(1);
    for (const item of exam.items) {
      expect(item.options).toHaveLength(4);
      expect(['A', 'B', 'C', 'D']).toContain(item.answer);
    }
    console.log(JSON.stringify({ exam: report }));
  }, 15 * MINUTES);
});

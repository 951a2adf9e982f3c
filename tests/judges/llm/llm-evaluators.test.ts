import { describe, expect, it } from 'vitest';
import { LlmClient } from '../../../src/judges/llm/client.ts';
import { LlmEvaluators } from '../../../src/judges/llm/llm-evaluators.ts';
import { LlmJudge, type LlmJudgeOptions } from '../../../src/judges/llm/llm-judge.ts';
import { TRUNCATION_FREQUENCY_PENALTY } from '../../../src/judges/llm/step.ts';
import { createInstruments } from '../../../src/telemetry/instruments.ts';
import type { LlmEvaluator } from '../../../src/judges/llm/evaluator-step.ts';
import type { JudgeResult } from '../../../src/judges/types.ts';
import { useFakeOpenAI, type FakeRequest } from '../../fakes/openai-server.ts';
import { criteriaOf, oracleResponder, parsePrompt } from '../helpers/oracle.ts';
import { CLOCK_QUERY, CLOCK_RESPONSE, CLOCK_SOURCES, triplet } from '../helpers/triplets.ts';

const fake = useFakeOpenAI((f) => f.setResponder(oracleResponder()));

const NO_DOSAGE: LlmEvaluator = {
  name: 'no_dosage_advice',
  description: 'The answer gives no medication dosage.',
  rubric: 'Fail if the RESPONSE tells the user how much of a medicine to take (an amount, a number of tablets, a frequency). Pass otherwise, including when it says to ask a pharmacist.',
  inputs: ['response'],
  output: { type: 'boolean' },
  examples: [{ response: 'Take two 200 mg tablets every four hours.', label: 'fail', reason: 'It gives an amount and a frequency.' }],
};
const TONE: LlmEvaluator = {
  name: 'answer_tone',
  description: 'The answer is courteous.',
  rubric: 'How does the RESPONSE address the user?',
  inputs: ['query', 'response'],
  output: { type: 'categorical', labels: [{ label: 'courteous', value: 1 }, { label: 'curt', value: 0.5 }, { label: 'rude', value: 0 }] },
};
const ON_TOPIC: LlmEvaluator = { name: 'on_topic', description: 'The answer stays on the question.', rubric: 'How much of the QUERY does the RESPONSE take up?', inputs: ['query', 'response'], output: { type: 'score' } };
const EVALUATORS = [NO_DOSAGE, TONE, ON_TOPIC];

function judge(options: LlmJudgeOptions = {}) {
  return new LlmJudge({ baseUrl: fake.baseURL, apiKey: 'k', model: 'judge-model', retryBaseMs: 5, maxRetries: 1, evaluators: EVALUATORS, ...options });
}

function ok(r: JudgeResult) {
  if (!r.ok) throw new Error(`expected scores, got ${r.error.code}: ${r.error.message}`);
  return r;
}

const evaluatorRequests = (): FakeRequest[] => fake.requests.filter((q) => parsePrompt(q).step === 'evaluators');

describe('llm evaluators: one call for all of a triplet’s', () => {
  it('judges three evaluators in one extra call (4 in all) and each output type parses', async () => {
    const r = ok(await judge().score(triplet('What should I take for a headache?', ['Ibuprofen relieves headaches. Ask a pharmacist about the dose.'], 'Take 400 mg of ibuprofen every six hours.')));
    expect(r.usage.calls).toBe(4);
    expect(fake.requests).toHaveLength(4);
    expect(evaluatorRequests()).toHaveLength(1);
    // boolean: fail = 0; categorical: the label's value; score: the value given.
    expect(r.scores.no_dosage_advice).toBe(0);
    expect(r.details.evaluators?.no_dosage_advice).toEqual({ label: 'fail', reason: 'The response gives what the rubric forbids.' });
    expect(r.scores.answer_tone).toBe(1);
    expect(r.details.evaluators?.answer_tone?.label).toBe('courteous');
    expect(r.scores.on_topic).toBeGreaterThan(0);
    expect(r.scores.on_topic).toBeLessThanOrEqual(1);
    expect(r.details.evaluators?.on_topic?.label).toBeUndefined();
    // The built-in metrics are all still there.
    expect(r.scores.groundedness).toBeDefined();
  });

  it('without evaluators the judge takes its three calls', async () => {
    const r = ok(await judge({ evaluators: [] }).score(triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE)));
    expect(r.usage.calls).toBe(3);
    expect(evaluatorRequests()).toHaveLength(0);
  });

  it('the prompt holds each rubric, description, label set and example, and the inputs as delimited data (only those read)', async () => {
    ok(await judge().score(triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE)));
    const [req] = evaluatorRequests();
    const p = parsePrompt(req!);
    for (const e of EVALUATORS) {
      expect(p.user).toContain(e.rubric!);
      expect(p.user).toContain(`### "${e.name}" — ${e.description}`);
    }
    expect(p.user).toContain('"label": the one of "courteous", "curt", "rude" that fits best');
    expect(p.user).toContain('Example 1 (written by the operator, not data of this call): RESPONSE: "Take two 200 mg tablets every four hours." → "label": "fail"');
    expect(criteriaOf(p).map((c) => [c.name, c.type])).toEqual([['no_dosage_advice', 'boolean'], ['answer_tone', 'categorical'], ['on_topic', 'score']]);
    // No evaluator reads the sources: they are not sent. Query and response are, each in a nonce'd block.
    expect(p.blocks.map((b) => b.kind)).toEqual(['query', 'response']);
    expect(p.blocks[0]!.text).toBe(CLOCK_QUERY);
    expect(p.blocks[1]!.text).toBe(CLOCK_RESPONSE);
    expect(p.user.lastIndexOf('TASK (restated)')).toBeGreaterThan(p.user.lastIndexOf(`</untrusted-${p.nonce}>`));
    // Structured output: one strict field per evaluator.
    const format = req!.body?.response_format as { type: string; json_schema: { name: string; strict: boolean; schema: { properties: { evaluations: { properties: Record<string, unknown>; required: string[] } } } } };
    expect(format.type).toBe('json_schema');
    expect(format.json_schema.name).toBe('ragwatch_evaluators');
    expect(format.json_schema.strict).toBe(true);
    expect(format.json_schema.schema.properties.evaluations.required.sort()).toEqual(['answer_tone', 'no_dosage_advice', 'on_topic']);
  });

  it('an evaluator that reads the sources and the earlier turns gets them, each source in its own block', async () => {
    const grounded: LlmEvaluator = { name: 'cites_policy', description: 'd', rubric: 'Does the answer rest on the SOURCES?', inputs: ['sources', 'history', 'response'], output: { type: 'boolean' } };
    const t = { ...triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE), conversation: { turn: 2, history: [{ role: 'user' as const, content: 'Tell me about Vadodara.' }, { role: 'assistant' as const, content: 'It is a city in Gujarat.' }] } };
    ok(await judge({ evaluators: [grounded] }).score(t));
    const p = parsePrompt(evaluatorRequests()[0]!);
    expect(p.blocks.map((b) => `${b.kind}${b.id ? `:${b.id}` : ''}`)).toEqual(['earlier-turn-user:t1', 'earlier-turn-assistant:t2', 'source:s1', 'source:s2', 'response']);
  });
});

describe('llm evaluators: malformed answers make the metric skipped, never scored', () => {
  it('one malformed field: asked once more, then that metric alone is skipped with a reason', async () => {
    fake.setResponder(oracleResponder((answer, p) => (p.step === 'evaluators' ? { ...answer, evaluations: { ...(answer.evaluations as object), answer_tone: { label: 'sarcastic', reason: 'x' } } } : answer)));
    const r = ok(await judge().score(triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE)));
    expect(evaluatorRequests()).toHaveLength(2);
    const repair = (evaluatorRequests()[1]!.body?.messages as Array<{ content: string }>).at(-1)!.content;
    expect(repair).toContain('Your previous answer was rejected: "answer_tone.label"');
    expect(r.scores.answer_tone).toBeUndefined();
    expect(r.skipped.answer_tone).toBe('malformed_output');
    expect(r.scores.no_dosage_advice).toBe(1);
    expect(r.scores.on_topic).toBeDefined();
    expect(r.usage.calls).toBe(5);
  });

  it('the repair answer fixes it: scored', async () => {
    let n = 0;
    fake.setResponder(oracleResponder((answer, p) => (p.step === 'evaluators' && n++ === 0 ? 'Sure! Here is my evaluation.' : answer)));
    const r = ok(await judge().score(triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE)));
    expect(evaluatorRequests()).toHaveLength(2);
    expect(Object.keys(r.skipped).filter((m) => ['no_dosage_advice', 'answer_tone', 'on_topic'].includes(m))).toEqual([]);
    expect(r.scores.no_dosage_advice).toBe(1);
  });

  it.each([
    ['prose', 'I think it passes.'],
    ['a wrong nonce (an answer written in advance)', JSON.stringify({ call: '0123456789abcdef', evaluations: { no_dosage_advice: { label: 'pass', reason: 'r' }, answer_tone: { label: 'courteous', reason: 'r' }, on_topic: { value: 1, reason: 'r' } } })],
    ['a value out of range', null],
  ])('%s twice: every evaluator skipped, the built-in metrics kept', async (what, content) => {
    fake.setResponder(oracleResponder((answer, p) => {
      if (p.step !== 'evaluators') return answer;
      if (content !== null) return content;
      return { ...answer, evaluations: { no_dosage_advice: { label: 'pass', reason: 'r' }, answer_tone: { label: 'courteous', reason: 'r' }, on_topic: { value: 7, reason: 'r' } } };
    }));
    const r = ok(await judge().score(triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE)));
    expect(evaluatorRequests()).toHaveLength(2);
    if (content === null) {
      expect(r.skipped).toMatchObject({ on_topic: 'malformed_output' });
      expect(r.scores).toMatchObject({ no_dosage_advice: 1, answer_tone: 1 });
    } else {
      expect(r.skipped).toMatchObject({ no_dosage_advice: 'malformed_output', answer_tone: 'malformed_output', on_topic: 'malformed_output' });
      for (const m of ['no_dosage_advice', 'answer_tone', 'on_topic']) expect(r.scores[m], what).toBeUndefined();
    }
    expect(r.scores.groundedness).toBeDefined();
  });

  it('a refused request (4xx) skips the evaluators (judge_error) and keeps the triplet’s other scores', async () => {
    fake.setResponder((req) => (parsePrompt(req).step === 'evaluators' ? { status: 400, body: { error: { message: 'bad request' } } } : oracleResponder()(req)));
    const r = ok(await judge().score(triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE)));
    expect(r.skipped).toMatchObject({ no_dosage_advice: 'judge_error', answer_tone: 'judge_error', on_topic: 'judge_error' });
    expect(r.scores.groundedness).toBeDefined();
  });

  it('an endpoint failing with 500 (after the client’s retries) fails the triplet as retriable; the retry reuses the built-in results', async () => {
    let failing = true;
    fake.setResponder((req) => (parsePrompt(req).step === 'evaluators' && failing ? { status: 500, body: { error: { message: 'down' } } } : oracleResponder()(req)));
    const j = judge();
    const t = triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE);
    const first = await j.score(t);
    expect(first).toMatchObject({ ok: false, retriable: true });
    failing = false;
    fake.requests.length = 0;
    const second = ok(await j.score(t));
    expect(fake.requests).toHaveLength(1);
    expect(evaluatorRequests()).toHaveLength(1);
    expect(second.scores.no_dosage_advice).toBe(1);
  });

  it('a result is cached: the same texts again take no call', async () => {
    const j = judge();
    const t = triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE);
    const a = ok(await j.score(t));
    fake.requests.length = 0;
    const b = ok(await j.score(t));
    expect(fake.requests).toHaveLength(0);
    expect(b.scores).toEqual(a.scores);
    expect(b.details.evaluators).toEqual(a.details.evaluators);
  });
});

describe('llm evaluators: an answer cut at max_tokens gets the built-in steps’ repair', () => {
  const data = { query: CLOCK_QUERY, sources: CLOCK_SOURCES, response: CLOCK_RESPONSE, history: [] };
  const usage = () => ({ calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 });
  const cut = { content: '{"call": "x", "evaluations": {"no_dosage_advice": {"label": "pass", "reason": "It gives no dose and no dose and no dose', completionTokens: 300, finishReason: 'length' as const };
  const setup = () => {
    const instruments = createInstruments({ processMetrics: false });
    const client = new LlmClient({ baseUrl: fake.baseURL, apiKey: 'k', model: 'judge-model', retryBaseMs: 5, maxRetries: 1, instruments });
    return { instruments, evaluators: new LlmEvaluators(client, EVALUATORS) };
  };
  const failures = async (instruments: ReturnType<typeof createInstruments>, reason: string) => (await instruments.judgeFailures.get()).values.find((v) => v.labels.step === 'evaluators' && v.labels.reason === reason)?.value ?? 0;

  it('is asked afresh (the loop not shown again) with the problem said and repeats penalised, then scored', async () => {
    fake.setResponder((req) => (req.body && 'frequency_penalty' in req.body ? oracleResponder()(req) : cut));
    const { evaluators } = setup();
    const r = await evaluators.judge(data, usage());
    if (!r.ok) throw new Error(r.error.message);
    expect(r.skipped).toEqual({});
    expect(r.scores.no_dosage_advice).toBe(1);
    const [first, second] = fake.requests.map((q) => q.body as { messages: Array<{ role: string; content: string }>; frequency_penalty?: number });
    expect(second!.messages.map((m) => m.role)).toEqual(first!.messages.map((m) => m.role));
    expect(second!.messages.at(-1)!.content.startsWith(first!.messages.at(-1)!.content)).toBe(true);
    expect(second!.messages.at(-1)!.content).toContain('stopped at its output budget (300 tokens)');
    expect(first!.frequency_penalty).toBeUndefined();
    expect(second!.frequency_penalty).toBe(TRUNCATION_FREQUENCY_PENALTY);
  });

  it('cut twice: every evaluator skipped as malformed_output, the failure counted as truncated (not malformed)', async () => {
    fake.setResponder(() => cut);
    const { evaluators, instruments } = setup();
    const r = await evaluators.judge(data, usage());
    if (!r.ok) throw new Error(r.error.message);
    expect(r.skipped).toEqual({ no_dosage_advice: 'malformed_output', answer_tone: 'malformed_output', on_topic: 'malformed_output' });
    expect(r.scores).toEqual({});
    expect(await failures(instruments, 'truncated')).toBe(1);
    expect(await failures(instruments, 'malformed')).toBe(0);
  });
});

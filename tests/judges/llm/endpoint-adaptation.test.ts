/**
 * The LLM judge against what local OpenAI-compatible servers refuse (issue 51), on the scripted fake:
 * llama-cpp-python's HTTP 500 validation error for `response_format: json_schema` moves the client once
 * to `json_object` with the schema beside it (then plain `json_object`, then none); a refused `seed` or
 * `strict` is dropped once; each change is logged once and counted; a context overflow is learned and
 * fails as `context_exceeded` without retries; every step's outcome is counted by reason; `max_tokens`
 * is the step's need; the time budget follows the endpoint's pace. The real server's behaviour is in
 * tests/integration/llm-judge-real.test.ts.
 */
import pino from 'pino';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LlmClient } from '../../../src/judges/llm/client.ts';
import { EndpointAdapter } from '../../../src/judges/llm/endpoint-adapter.ts';
import { runStep, TRUNCATION_FREQUENCY_PENALTY } from '../../../src/judges/llm/step.ts';
import { responseMatchStep, sameAnswerStep, sourceMatchStep } from '../../../src/judges/llm/steps.ts';
import { TimeBudget } from '../../../src/judges/llm/time-budget.ts';
import { createInstruments } from '../../../src/telemetry/instruments.ts';
import { useFakeOpenAI, type FakeRequest } from '../../fakes/openai-server.ts';

const fake = useFakeOpenAI();

/** A JSON schema node as the tests read it. */
interface SchemaNode {
  properties: Record<string, SchemaNode>;
  prefixItems: SchemaNode[];
  const?: string;
  enum?: string[];
}

/** llama-cpp-python 0.3.16's answer to `response_format: {type: "json_schema"}` (HTTP 500). */
const LLAMA_CPP_PYTHON_REFUSAL = {
  status: 500,
  body: { error: { message: "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', 'ctx': {'expected': \"'text' or 'json_object'\"}}]", type: 'internal_server_error' } },
};

function nonceOf(req: FakeRequest): string {
  const messages = req.body?.messages as Array<{ content: string }>;
  return /"call": "([0-9a-f]{16})"/.exec(messages[0]!.content)![1]!;
}

function setup() {
  const lines: string[] = [];
  const logger = pino({ level: 'info' }, new Writable({ write: (c: Buffer, _e, cb) => (lines.push(c.toString('utf8')), cb()) }));
  const instruments = createInstruments({ processMetrics: false });
  const client = new LlmClient({ baseUrl: fake.baseURL, model: 'small-local', retryBaseMs: 10, retryMaxMs: 20, instruments, logger });
  const usage = () => ({ calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 });
  const ask = () => runStep(client, sameAnswerStep('When was it built?', ['1896'], 'In 1896.'), usage());
  return { client, instruments, lines, ask };
}

async function value(metric: { get(): Promise<{ values: Array<{ labels: Record<string, unknown>; value: number }> }> }, labels: Record<string, string>): Promise<number> {
  const { values } = await metric.get();
  return values.find((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want))?.value ?? 0;
}

describe('adapting to a local server, once', () => {
  it('a 500 refusing json_schema moves to json_object with the schema (grammar), logged and counted once', async () => {
    fake.setResponder((req) => {
      const format = req.body?.response_format as { type: string } | undefined;
      if (format?.type === 'json_schema') return LLAMA_CPP_PYTHON_REFUSAL;
      return { content: JSON.stringify({ call: nonceOf(req), same: true }) };
    });
    const { client, instruments, lines, ask } = setup();
    expect(await ask()).toEqual({ ok: true, value: true });
    expect(await ask()).toEqual({ ok: true, value: true });
    const formats = fake.requests.map((r) => (r.body?.response_format as { type: string; schema?: unknown }) ?? {});
    expect(formats.map((f) => f.type)).toEqual(['json_schema', 'json_object', 'json_object']);
    expect(formats[1]!.schema).toMatchObject({ type: 'object', required: expect.arrayContaining(['call', 'same']) });
    expect(client.outputMode).toBe('json_object_schema');
    expect(await value(instruments.judgeAdaptations, { change: 'output:json_object_schema' })).toBe(1);
    expect(lines.filter((l) => l.includes('adapting once'))).toHaveLength(1);
    expect(await value(instruments.judgeAnswers, { step: 'same_answer', outcome: 'valid_first_try' })).toBe(2);
  });

  it('a grammar-constrained server gets every id pinned to one place; a strict json_schema endpoint the plain schema', async () => {
    // The real server's 1.5B model once listed claim c1 twice under an enum of ids (docs/judges.md).
    fake.setResponder((req) => {
      const format = req.body?.response_format as { type: string } | undefined;
      if (format?.type === 'json_schema') return LLAMA_CPP_PYTHON_REFUSAL;
      return { content: JSON.stringify({ call: nonceOf(req), claims: [{ id: 'c1', essential: true, verdict: 'supported' }, { id: 'c2', essential: false, verdict: 'not_in_sources' }], subQuestions: [{ id: 'q1', coveredByResponse: true }], response: { toxic: false, categories: [] } }) };
    });
    const { client } = setup();
    const step = responseMatchStep('Who?', 'Ann. In 1900.', [{ id: 's1', content: 'Ann did it.' }], [{ id: 'c1', text: 'Ann did it.' }, { id: 'c2', text: 'It was 1900.' }], [{ id: 'q1', text: 'Who?' }]);
    const r = await runStep(client, step, { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 });
    expect(r.ok).toBe(true);
    const [strict, grammar] = fake.requests.map((q) => q.body?.response_format as { json_schema?: { schema: SchemaNode }; schema?: SchemaNode });
    expect(strict!.json_schema!.schema.properties.claims).not.toHaveProperty('prefixItems');
    const claims = grammar!.schema!.properties.claims;
    expect(claims).toMatchObject({ type: 'array', minItems: 2, maxItems: 2 });
    expect(claims.prefixItems.map((i: SchemaNode) => i.properties.id)).toEqual([{ type: 'string', const: 'c1' }, { type: 'string', const: 'c2' }]);
    expect(claims.prefixItems[0].properties.verdict.enum).toEqual(['supported', 'contradicted', 'not_in_sources']);
    expect(grammar!.schema!.properties.subQuestions.prefixItems.map((i: SchemaNode) => i.properties.id.const)).toEqual(['q1']);
    // Toxic exactly when it names a category: the grammar offers no self-contradicting verdict.
    expect(JSON.stringify(grammar!.schema!.properties.response)).toContain('"anyOf"');
    expect(strict!.json_schema!.schema.properties.response).not.toHaveProperty('anyOf');
  });

  it('pins nested ids to their own parent (each source its own facts)', () => {
    const step = sourceMatchStep('Q', [{ id: 's1', content: 'A', facts: [{ id: 'f1', text: 'a' }, { id: 'f2', text: 'b' }] }, { id: 's2', content: 'B', facts: [{ id: 'f3', text: 'c' }] }], []);
    const sources = (step.grammarSchema as unknown as SchemaNode).properties.sources;
    expect(sources.prefixItems.map((s: SchemaNode) => [s.properties.id.const, s.properties.facts.prefixItems.map((f: SchemaNode) => f.properties.id.const)])).toEqual([['s1', ['f1', 'f2']], ['s2', ['f3']]]);
    expect((step.grammarSchema as unknown as SchemaNode).properties.subQuestions).toMatchObject({ prefixItems: [], minItems: 0, maxItems: 0 });
    // What zod checks is unchanged: an answer in the plain schema's shape still parses.
    expect(step.parse(JSON.stringify({ call: step.boundary.nonce, sources: [{ id: 's1', essential: true, facts: [{ id: 'f1', essential: true }, { id: 'f2', essential: false }] }, { id: 's2', essential: false, facts: [{ id: 'f3', essential: false }] }], subQuestions: [] })).ok).toBe(true);
  });

  it('goes down the ladder to plain json_object, then to none, when each is refused', async () => {
    fake.setResponder((req) => {
      const format = req.body?.response_format as { type: string; schema?: unknown } | undefined;
      if (format?.type === 'json_schema') return { status: 400, body: { error: { message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model." } } };
      if (format?.schema !== undefined) return { status: 422, body: { detail: [{ loc: ['body', 'response_format', 'schema'], msg: 'Extra inputs are not permitted' }] } };
      if (format?.type === 'json_object') return { status: 400, body: { error: { message: 'response_format json_object is not supported' } } };
      return { content: JSON.stringify({ call: nonceOf(req), same: false }) };
    });
    const { client, instruments, ask } = setup();
    expect(await ask()).toEqual({ ok: true, value: false });
    expect(client.outputMode).toBe('prompt_only');
    expect(fake.requests.at(-1)!.body).not.toHaveProperty('response_format');
    for (const change of ['output:json_object_schema', 'output:json_object', 'output:prompt_only']) expect(await value(instruments.judgeAdaptations, { change })).toBe(1);
    // No retry was spent on refusals: 4 requests for one call.
    expect(fake.requests).toHaveLength(4);
  });

  it('calls in flight at the first refusal are sent again in the new shape, not adapted twice', async () => {
    let refusals = 0;
    fake.setResponder(async (req) => {
      const format = req.body?.response_format as { type: string } | undefined;
      if (format?.type === 'json_schema') {
        // Both calls are refused, the second only after the first refusal was read.
        await new Promise((r) => setTimeout(r, 50 * refusals++));
        return LLAMA_CPP_PYTHON_REFUSAL;
      }
      return { content: JSON.stringify({ call: nonceOf(req), same: true }) };
    });
    const { client, instruments, ask } = setup();
    const [a, b] = await Promise.all([ask(), ask()]);
    expect([a.ok, b.ok]).toEqual([true, true]);
    expect(client.outputMode).toBe('json_object_schema');
    expect(await value(instruments.judgeAdaptations, { change: 'output:json_object' })).toBe(0);
    expect(await value(instruments.judgeRequests, { outcome: 'server_error' })).toBe(2);
    expect(fake.requests).toHaveLength(4);
  });

  it('drops a refused seed once and keeps it dropped', async () => {
    fake.setResponder((req) => (req.body && 'seed' in req.body ? { status: 400, body: { error: { message: 'Unrecognized request argument supplied: seed' } } } : { content: JSON.stringify({ call: nonceOf(req), same: true }) }));
    const { instruments, ask } = setup();
    expect((await ask()).ok).toBe(true);
    expect((await ask()).ok).toBe(true);
    expect(fake.requests.map((r) => 'seed' in (r.body ?? {}))).toEqual([true, false, false]);
    expect(await value(instruments.judgeAdaptations, { change: 'seed:dropped' })).toBe(1);
  });

  it('a refusal it cannot adapt to fails as before (rejected), counted by reason', async () => {
    fake.setResponder(() => ({ status: 400, body: { error: { message: 'model not found' } } }));
    const { instruments, ask } = setup();
    const r = await ask();
    expect(r).toMatchObject({ ok: false, retriable: false, error: { code: 'RAGWATCH_JUDGE_REJECTED' } });
    expect(fake.requests).toHaveLength(1);
    expect(await value(instruments.judgeFailures, { step: 'same_answer', reason: 'rejected' })).toBe(1);
    expect(await value(instruments.judgeLastFailure, { step: 'same_answer', reason: 'rejected' })).toBeGreaterThan(0);
  });

  it('an answer invalid after the repair is a counted malformed failure, never a score', async () => {
    fake.setResponder(() => ({ content: 'Yes, the answers match.' }));
    const { instruments, ask } = setup();
    expect(await ask()).toMatchObject({ ok: false, error: { code: 'RAGWATCH_JUDGE_MALFORMED' } });
    expect(await value(instruments.judgeFailures, { step: 'same_answer', reason: 'malformed' })).toBe(1);
    expect(await value(instruments.judgeAnswers, { step: 'same_answer', outcome: 'invalid_after_repair' })).toBe(1);
  });

  it('an answer cut at max_tokens is repaired with that said, then counted as truncated (not as a format failure)', async () => {
    // What a 1.5B model did on the real server: a list that never closed until the budget ran out.
    fake.setResponder((req) => ({ content: `{"call": "${nonceOf(req)}", "same": tru`, completionTokens: 40, finishReason: 'length' }));
    const { instruments, ask } = setup();
    const r = await ask();
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe('RAGWATCH_JUDGE_MALFORMED');
    expect(r.error.message).toContain('stopped at its output budget (40 tokens)');
    // The repair is the question asked afresh (the loop is not shown again), the problem said, repeats penalised.
    const [first, second] = fake.requests.map((q) => q.body as { messages: Array<{ role: string; content: string }>; frequency_penalty?: number });
    expect(second!.messages.map((m) => m.role)).toEqual(first!.messages.map((m) => m.role));
    expect(second!.messages.at(-1)!.content.startsWith(first!.messages.at(-1)!.content)).toBe(true);
    expect(second!.messages.at(-1)!.content).toContain('list each item once, with fewer and shorter items');
    expect(first!.frequency_penalty).toBeUndefined();
    expect(second!.frequency_penalty).toBe(TRUNCATION_FREQUENCY_PENALTY);
    expect(await value(instruments.judgeFailures, { step: 'same_answer', reason: 'truncated' })).toBe(1);
    expect(await value(instruments.judgeFailures, { step: 'same_answer', reason: 'malformed' })).toBe(0);
    expect(await value(instruments.judgeAnswers, { step: 'same_answer', outcome: 'invalid_after_repair' })).toBe(1);
  });

  it('a truncated answer repaired with the penalty is a score, valid after repair', async () => {
    fake.setResponder((req) => (req.body && 'frequency_penalty' in req.body ? { content: JSON.stringify({ call: nonceOf(req), same: true }) } : { content: `{"call": "${nonceOf(req)}", "same`, completionTokens: 40, finishReason: 'length' }));
    const { instruments, ask } = setup();
    expect(await ask()).toEqual({ ok: true, value: true });
    expect(await value(instruments.judgeAnswers, { step: 'same_answer', outcome: 'valid_after_repair' })).toBe(1);
  });

  it('drops a refused frequency_penalty once, sends the repair again without it, and keeps it dropped', async () => {
    fake.setResponder((req) => {
      if (req.body && 'frequency_penalty' in req.body) return { status: 400, body: { error: { message: "Unsupported parameter: 'frequency_penalty' is not supported with this model." } } };
      const messages = req.body?.messages as Array<{ content: string }>;
      return messages.at(-1)!.content.includes('rejected') ? { content: JSON.stringify({ call: nonceOf(req), same: false }) } : { content: '{"same', completionTokens: 40, finishReason: 'length' };
    });
    const { instruments, lines, ask } = setup();
    expect(await ask()).toEqual({ ok: true, value: false });
    expect(await ask()).toEqual({ ok: true, value: false });
    expect(fake.requests.map((r) => 'frequency_penalty' in (r.body ?? {}))).toEqual([false, true, false, false, false]);
    expect(await value(instruments.judgeAdaptations, { change: 'frequency_penalty:dropped' })).toBe(1);
    expect(lines.filter((l) => l.includes('frequency_penalty:dropped'))).toHaveLength(1);
  });

  it('asks for no more output than the step needs', async () => {
    fake.setResponder((req) => ({ content: JSON.stringify({ call: nonceOf(req), same: true }) }));
    const { ask } = setup();
    await ask();
    expect(fake.requests[0]!.body!.max_tokens).toBeLessThanOrEqual(200);
  });
});

describe('the context window', () => {
  it('learns it from an overflow refusal, fails as context_exceeded without retrying, and sends no prompt that cannot fit', async () => {
    fake.setResponder(() => ({ status: 400, body: { error: { message: 'Requested tokens (5000) exceed context window of 512' } } }));
    const instruments = createInstruments({ processMetrics: false });
    const client = new LlmClient({ baseUrl: fake.baseURL, retryBaseMs: 10, instruments });
    const long = 'The clock tower was completed in 1896. '.repeat(60);
    const step = () => sameAnswerStep('When was it built?', ['1896'], long);
    const usage = { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 };
    expect(await runStep(client, step(), usage)).toMatchObject({ ok: false, retriable: false, error: { code: 'RAGWATCH_JUDGE_CONTEXT_EXCEEDED' } });
    expect(client.contextTokens).toBe(512);
    expect(await runStep(client, step(), usage)).toMatchObject({ ok: false, error: { code: 'RAGWATCH_JUDGE_CONTEXT_EXCEEDED' } });
    expect(fake.requests).toHaveLength(1);
    expect(await value(instruments.judgeFailures, { step: 'same_answer', reason: 'context_exceeded' })).toBe(2);
  });

  it('a configured window caps max_tokens at what is left after the prompt', async () => {
    fake.setResponder((req) => ({ content: JSON.stringify({ call: nonceOf(req), same: true }) }));
    const client = new LlmClient({ baseUrl: fake.baseURL, contextTokens: 1200 });
    const r = await runStep(client, sameAnswerStep('When?', ['1896'], 'In 1896.'), { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 });
    expect(r.ok).toBe(true);
    expect(fake.requests[0]!.body!.max_tokens).toBeLessThan(1200);
  });

  it('recognises the overflow messages of llama.cpp, vLLM and OpenAI', () => {
    for (const [message, n] of [
      ['Requested tokens (3000) exceed context window of 2048', 2048],
      ["This model's maximum context length is 8192 tokens. However, you requested 9000 tokens", 8192],
      ['the request exceeds the available context size (4096 tokens), try increasing it', 4096],
    ] as const) {
      const a = new EndpointAdapter();
      expect(a.learnContext(message)).toBe(true);
      expect(a.contextTokens).toBe(n);
    }
    expect(new EndpointAdapter().learnContext('rate limit exceeded')).toBe(false);
  });
});

describe('time budget', () => {
  it('starts generous for a CPU, follows the observed pace, and stays between its floor and ceiling', () => {
    const b = new TimeBudget();
    expect(b.budgetMs(20, 10)).toBe(30_000);
    const first = b.budgetMs(2_000, 400);
    expect(first).toBeGreaterThan(100_000);
    // A hosted endpoint: 1,000 prompt + 100 output tokens in 800 ms.
    for (let i = 0; i < 10; i++) b.observe(1_000, 100, 800);
    expect(b.budgetMs(2_000, 400)).toBe(30_000);
    // A timed-out call doubles the assumed pace: the retry's budget is twice as long.
    const unknown = new TimeBudget();
    const before = unknown.budgetMs(2_000, 400);
    unknown.timedOut();
    expect(unknown.budgetMs(2_000, 400)).toBe(Math.min(1_800_000, 2 * before));
    // Calls in flight queue: the second call's budget covers the first's expected work too.
    const queue = new TimeBudget();
    const firstCall = queue.start(2_000, 400);
    const secondCall = queue.start(2_000, 400);
    expect(secondCall.budgetMs).toBe(Math.min(1_800_000, 2 * firstCall.budgetMs));
    firstCall.end({ input: 2_000, output: 200, durationMs: 10_000 });
    secondCall.end({ input: 2_000, output: 200, durationMs: 20_000 });
    // Both answers took 10 s of their own: 10 000 ms / (2 000 + 4 × 200) weighted tokens.
    expect(queue.msPerToken).toBeCloseTo(10_000 / 2_800, 6);
    expect(queue.start(100, 10).budgetMs).toBe(30_000);
    const slow = new TimeBudget();
    for (let i = 0; i < 10; i++) slow.observe(1_000, 100, 60_000);
    expect(slow.budgetMs(100_000, 4_000)).toBe(1_800_000);
  });
});

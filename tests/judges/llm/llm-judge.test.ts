import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.ts';
import { aggregateVerdicts } from '../../../src/judges/aggregate.ts';
import { createJudge } from '../../../src/judges/create.ts';
import { EndpointEmbedder } from '../../../src/judges/llm/endpoint-embedder.ts';
import { LlmJudge, type LlmJudgeOptions } from '../../../src/judges/llm/llm-judge.ts';
import type { JudgeResult } from '../../../src/judges/types.ts';
import { createInstruments } from '../../../src/telemetry/instruments.ts';
import { LLM_METRICS } from '../../../src/triplet.ts';
import { useFakeOpenAI } from '../../fakes/openai-server.ts';
import { oracleResponder, parsePrompt } from '../helpers/oracle.ts';
import { CLOCK_QUERY, CLOCK_RESPONSE, CLOCK_SOURCES, triplet } from '../helpers/triplets.ts';

const fake = useFakeOpenAI((f) => f.setResponder(oracleResponder()));

function judge(options: LlmJudgeOptions = {}) {
  const instruments = createInstruments({ processMetrics: false });
  return { judge: new LlmJudge({ baseUrl: fake.baseURL, apiKey: 'test', model: 'judge-model', retryBaseMs: 20, instruments, ...options }), instruments };
}

function ok(r: JudgeResult) {
  if (!r.ok) throw new Error(`expected a score, got ${r.error.code}: ${r.error.message}`);
  return r;
}

async function counter(instruments: ReturnType<typeof createInstruments>, name: string, labels: Record<string, string>): Promise<number> {
  const metric = (await instruments.registry.getMetricsAsJSON()).find((m) => m.name === name);
  const value = metric?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l));
  return value?.value ?? 0;
}

describe('LlmJudge end to end through an OpenAI-compatible endpoint', () => {
  it('scores every LLM metric in three calls and explains every component', async () => {
    const { judge: j, instruments } = judge({ prices: { 'judge-model': { inputPerMillion: 2, outputPerMillion: 8 } } });
    const r = ok(await j.score(triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE)));
    expect(Object.keys(r.scores).sort()).toEqual([...LLM_METRICS].sort());
    expect(await counter(instruments, 'ragwatch_judge_cost_total', { model: 'judge-model' })).toBeCloseTo((r.usage.inputTokens * 2 + r.usage.outputTokens * 8) / 1e6, 12);
    for (const v of Object.values(r.scores)) expect(v).toBeGreaterThanOrEqual(0);
    expect(r.usage.calls).toBe(3);
    expect(fake.requests).toHaveLength(3);
    // Scores are exactly the aggregation of the per-component verdicts in details.
    const again = aggregateVerdicts({
      claims: r.details.claims.map((c) => ({ text: c.text, essential: c.essential!, verdict: c.verdict! })),
      subQuestions: r.details.subQuestions,
      sources: r.details.sources.map((s) => ({ index: s.index, essential: s.essential!, facts: [] })),
      hasResponse: true,
    });
    for (const m of ['response_precision', 'groundedness', 'faithfulness', 'source_precision', 'source_query_coverage', 'response_query_coverage'] as const) expect(r.scores[m]).toBe(again.scores[m]);
    expect(r.details.claims).toHaveLength(3);
    expect(r.details.subQuestions.map((q) => q.text)).toEqual(['When was the Chimnabai Clock Tower completed?', 'who was it named after?']);
    expect(r.details.subQuestions.every((q) => q.coveredBySources !== undefined && q.coveredByResponse !== undefined)).toBe(true);
    expect(r.details.sources.map((s) => s.index)).toEqual([0, 1]);
    // Sentences 1 and 3 say the same thing (bundled model, threshold 0.8): THELMA's SD = 1/3.
    expect(r.scores.response_self_distinctness).toBeCloseTo(1 / 3, 12);
    expect(r.details.redundantSentences).toEqual([[0, 2]]);
    // Usage is what the endpoint reported, summed over the calls.
    const reported = fake.requests.length;
    expect(reported).toBe(3);
    expect(r.usage.inputTokens).toBe(await counter(instruments, 'ragwatch_judge_tokens_total', { type: 'input' }));
    expect(r.usage.inputTokens).toBeGreaterThan(100);
    expect(await counter(instruments, 'ragwatch_judge_requests_total', { outcome: 'ok' })).toBe(3);
    // Request contract: temperature 0, seed, strict JSON schema naming the step.
    for (const req of fake.requests) {
      expect(req.body).toMatchObject({ model: 'judge-model', temperature: 0, seed: 0, response_format: { type: 'json_schema', json_schema: { strict: true } } });
    }
  });

  it('groundedness / faithfulness / hallucination_free come from one three-way verdict per claim', async () => {
    const { judge: j } = judge();
    const wrong = CLOCK_RESPONSE.replaceAll('1896', '1856');
    const r = ok(await j.score(triplet(CLOCK_QUERY, CLOCK_SOURCES, wrong)));
    expect(r.details.claims.map((c) => c.verdict)).toEqual(['contradicted', 'supported', 'contradicted']);
    expect(r.scores.groundedness).toBeCloseTo(1 / 3, 12);
    expect(r.scores.faithfulness).toBeCloseTo(1 / 3, 12);
    expect(r.scores.hallucination_free).toBeCloseTo(1 / 3, 12);
  });

  it('warm cache: source facts are not decomposed again; an identical triplet makes no call', async () => {
    const { judge: j } = judge();
    ok(await j.score(triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE)));
    fake.requests.length = 0;
    const warm = ok(await j.score(triplet('Who was the Chimnabai Clock Tower named after?', CLOCK_SOURCES, 'It was named after Chimnabai I.')));
    expect(warm.usage.calls).toBe(3);
    const decompose = fake.requests.map(parsePrompt).find((p) => p.step === 'decompose')!;
    expect(decompose.blocks.filter((b) => b.kind === 'source')).toHaveLength(0);
    // Facts still reach the source-match call from the cache.
    const sourceMatch = fake.requests.map(parsePrompt).find((p) => p.step === 'source_match')!;
    expect(sourceMatch.blocks.filter((b) => b.kind === 'fact').length).toBeGreaterThan(5);
    fake.requests.length = 0;
    const same = ok(await j.score(triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE)));
    expect(same.usage.calls).toBe(0);
    expect(fake.requests).toHaveLength(0);
    expect(same.scores.response_self_distinctness).toBeCloseTo(1 / 3, 12);
  });

  it('sourceMetrics false: two calls, no source facts asked for, the answer metrics as with three, the retrieval metrics skipped as disabled', async () => {
    const full = ok(await judge({ resultCacheSize: 0, factCacheSize: 0 }).judge.score(triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE)));
    fake.requests.length = 0;
    const r = ok(await judge({ sourceMetrics: false }).judge.score(triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE)));
    expect(r.usage.calls).toBe(2);
    const prompts = fake.requests.map(parsePrompt);
    expect(prompts.map((p) => p.step).sort()).toEqual(['decompose', 'response_match']);
    expect(prompts.find((p) => p.step === 'decompose')!.blocks.filter((b) => b.kind === 'source')).toHaveLength(0);
    // The claims are still checked against every source.
    expect(prompts.find((p) => p.step === 'response_match')!.blocks.filter((b) => b.kind === 'source')).toHaveLength(CLOCK_SOURCES.length);
    expect(r.usage.inputTokens).toBeLessThan(full.usage.inputTokens * 0.8);
    for (const m of ['groundedness', 'faithfulness', 'hallucination_free', 'response_precision', 'response_query_coverage', 'non_toxic', 'response_self_distinctness'] as const) expect(r.scores[m]).toBe(full.scores[m]);
    expect(r.skipped).toMatchObject({ source_precision: 'disabled', source_fact_precision: 'disabled', source_query_coverage: 'disabled' });
    for (const m of ['source_precision', 'source_fact_precision', 'source_query_coverage']) expect(r.scores).not.toHaveProperty(m);
    expect(r.details.sources).toEqual([]);
    expect(r.details.claims.every((c) => c.verdict !== undefined)).toBe(true);
  });

  it('judge.llm.sourceMetrics in the configuration reaches the judge', async () => {
    const config = loadConfig({ env: {}, overrides: { judge: { kind: 'llm', baseUrl: fake.baseURL, apiKey: 'test', model: 'judge-model', llm: { sourceMetrics: false } } } });
    expect(ok(await createJudge(config).score(triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE))).usage.calls).toBe(2);
    expect(loadConfig({ env: {} }).judge.llm.sourceMetrics).toBe(true);
  });

  it('no sources and an empty response: skipped with reasons, fewer calls, nothing invented', async () => {
    const { judge: j } = judge();
    const r = ok(await j.score(triplet(CLOCK_QUERY, [], CLOCK_RESPONSE)));
    expect(r.skipped).toMatchObject({ source_precision: 'no_sources', source_query_coverage: 'no_sources', groundedness: 'no_sources', faithfulness: 'no_sources', hallucination_free: 'no_sources' });
    expect(r.details.claims.every((c) => c.verdict === undefined)).toBe(true);
    expect(r.usage.calls).toBe(2);
    const e = ok(await j.score(triplet(CLOCK_QUERY, CLOCK_SOURCES, '')));
    expect(e.skipped).toMatchObject({ response_precision: 'empty_response', groundedness: 'empty_response', response_query_coverage: 'empty_response', response_self_distinctness: 'empty_response' });
    expect(e.scores.source_precision).toBeDefined();
    for (const v of [...Object.values(r.scores), ...Object.values(e.scores)]) expect(Number.isFinite(v)).toBe(true);
  });
});

describe('malformed answers: one repair, then the triplet fails (never a score)', () => {
  it('a wrong verdict count is repaired once', async () => {
    let broken = 0;
    fake.setResponder(
      oracleResponder((answer, p) => {
        if (p.step === 'response_match' && broken++ === 0) return { ...answer, claims: (answer.claims as unknown[]).slice(1) };
        return answer;
      }),
    );
    const { judge: j } = judge();
    const r = ok(await j.score(triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE)));
    expect(r.usage.calls).toBe(4);
    const repair = fake.requests.find((q) => (q.body?.messages as unknown[]).length === 4)!;
    const msgs = repair.body!.messages as Array<{ role: string; content: string }>;
    expect(msgs[2]!.role).toBe('assistant');
    expect(msgs[3]!.content).toContain('expected 3 claims');
  });

  it('wrong counts twice → RAGWATCH_JUDGE_MALFORMED, not retriable, no scores', async () => {
    fake.setResponder(oracleResponder((answer, p) => (p.step === 'response_match' ? { ...answer, claims: [] } : answer)));
    const { judge: j } = judge();
    const r = await j.score(triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE));
    expect(r).toMatchObject({ ok: false, retriable: false, error: { code: 'RAGWATCH_JUDGE_MALFORMED' } });
    expect('scores' in r).toBe(false);
  });

  it('malformed JSON twice fails; duplicated or unknown ids are rejected too', async () => {
    fake.setResponder(oracleResponder((answer, p) => (p.step === 'decompose' ? '{"call": "x", "claims": [' : answer)));
    const r = await judge().judge.score(triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE));
    expect(r).toMatchObject({ ok: false, error: { code: 'RAGWATCH_JUDGE_MALFORMED' } });
    expect(fake.requests).toHaveLength(2);

    fake.setResponder(
      oracleResponder((answer, p) => {
        if (p.step !== 'response_match') return answer;
        const claims = answer.claims as Array<{ id: string }>;
        return { ...answer, claims: claims.map((c) => ({ ...c, id: 'c1' })) };
      }),
    );
    const dup = await judge({ structuredOutput: 'json_object' }).judge.score(triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE));
    expect(dup).toMatchObject({ ok: false, error: { code: 'RAGWATCH_JUDGE_MALFORMED', message: expect.stringContaining('duplicate claims id') } });
  });
});

describe('source-match count check', () => {
  it('a source answered without its facts is rejected (repair, then failure)', async () => {
    fake.setResponder(
      oracleResponder((answer, p) => {
        if (p.step !== 'source_match') return answer;
        const sources = answer.sources as Array<{ id: string; facts: unknown[] }>;
        return { ...answer, sources: sources.map((x) => ({ ...x, facts: [] })) };
      }),
    );
    const r = await judge().judge.score(triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE));
    expect(r).toMatchObject({ ok: false, retriable: false, error: { code: 'RAGWATCH_JUDGE_MALFORMED', message: expect.stringContaining('facts of s1') } });
    expect(fake.requests.filter((q) => parsePrompt(q).step === 'source_match')).toHaveLength(2);
  });
});

describe('self-distinctness through the endpoint embeddings API', () => {
  it('uses the vectors the endpoint returns', async () => {
    // The fake endpoint returns the same vector for every input: every sentence repeats every other.
    const { judge: j } = judge({ embedder: new EndpointEmbedder({ baseUrl: fake.baseURL, apiKey: 'test', model: 'embed-model' }) });
    const r = ok(await j.score(triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE)));
    expect(r.scores.response_self_distinctness).toBe(0);
    expect(r.details.redundantSentences).toEqual([[0, 1], [0, 2], [1, 2]]);
    const embedCall = fake.requests.find((q) => q.path.endsWith('/embeddings'))!;
    expect(embedCall.body).toMatchObject({ model: 'embed-model', input: expect.arrayContaining(['The Chimnabai Clock Tower was completed in 1896.']) });
  });
});

describe('transient endpoint errors inside a triplet', () => {
  it('a 429 (retry-after-ms) on one step is waited out; the triplet still scores, retries are not judge calls', async () => {
    let first = true;
    const oracle = oracleResponder();
    fake.setResponder((req) => {
      if (first) {
        first = false;
        return { status: 429, headers: { 'retry-after-ms': '200' } };
      }
      return oracle(req);
    });
    const { judge: j, instruments } = judge();
    const r = ok(await j.score(triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE)));
    expect(fake.requests).toHaveLength(4);
    expect(fake.requests[1]!.receivedAtMs - fake.requests[0]!.receivedAtMs).toBeGreaterThanOrEqual(190);
    expect(r.usage.calls).toBe(3);
    expect(await counter(instruments, 'ragwatch_judge_requests_total', { outcome: 'rate_limited' })).toBe(1);
    expect(Object.keys(r.scores)).toHaveLength(LLM_METRICS.length);
  });

  it('a 503 that outlasts the retries fails the triplet as retriable with retryAfterMs (Kafka: pause, then DLQ)', async () => {
    fake.setResponder(() => ({ status: 503, headers: { 'retry-after': '2' } }));
    const r = await judge({ maxRetries: 0 }).judge.score(triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE));
    expect(r).toMatchObject({ ok: false, retriable: true, retryAfterMs: 2000, error: { code: 'RAGWATCH_JUDGE_UNAVAILABLE' } });
    expect('scores' in r).toBe(false);
  });
});

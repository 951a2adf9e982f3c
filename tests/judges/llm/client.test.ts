import { describe, expect, it } from 'vitest';
import { LlmClient, type LlmClientOptions } from '../../../src/judges/llm/client.ts';
import { LlmJudge } from '../../../src/judges/llm/llm-judge.ts';
import { backoffMs, isRetriableStatus, parseRetryAfterMs } from '../../../src/judges/llm/retry-policy.ts';
import { TokenLimiter } from '../../../src/judges/llm/token-limiter.ts';
import { createInstruments } from '../../../src/telemetry/instruments.ts';
import { useFakeOpenAI, type FakeReply } from '../../fakes/openai-server.ts';
import { oracleResponder } from '../helpers/oracle.ts';
import { CLOCK_QUERY, CLOCK_RESPONSE, CLOCK_SOURCES, triplet } from '../helpers/triplets.ts';

const fake = useFakeOpenAI();

const REQUEST = { messages: [{ role: 'user' as const, content: 'hi' }], schemaName: 'x', jsonSchema: { type: 'object' } };

function client(options: LlmClientOptions = {}) {
  const instruments = createInstruments({ processMetrics: false });
  return { client: new LlmClient({ baseUrl: fake.baseURL, apiKey: 'k', retryBaseMs: 40, retryMaxMs: 200, instruments, ...options }), instruments };
}

/** Replies from a script, one entry per request (the last one repeats). */
function script(...replies: FakeReply[]) {
  let i = 0;
  fake.setResponder(() => replies[Math.min(i++, replies.length - 1)]!);
}

async function count(instruments: ReturnType<typeof createInstruments>, outcome: string): Promise<number> {
  const m = (await instruments.registry.getMetricsAsJSON()).find((x) => x.name === 'ragwatch_judge_requests_total');
  return m?.values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
}

describe('LlmClient retries', () => {
  it('honours Retry-After on 429, then succeeds', async () => {
    script({ status: 429, headers: { 'retry-after': '1' } }, { content: '{}', promptTokens: 7, completionTokens: 3 });
    const { client: c, instruments } = client();
    const r = await c.complete(REQUEST);
    expect(r).toMatchObject({ ok: true, content: '{}', inputTokens: 7, outputTokens: 3 });
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests[1]!.receivedAtMs - fake.requests[0]!.receivedAtMs).toBeGreaterThanOrEqual(950);
    expect(await count(instruments, 'rate_limited')).toBe(1);
    expect(await count(instruments, 'ok')).toBe(1);
  });

  it('500s: bounded exponential retries, then a retriable failure with retryAfterMs', async () => {
    script({ status: 500 });
    const { client: c, instruments } = client({ maxRetries: 2 });
    const r = await c.complete(REQUEST);
    expect(r).toMatchObject({ ok: false, retriable: true, error: { code: 'RAGWATCH_JUDGE_UNAVAILABLE' } });
    expect(r.ok ? 0 : r.retryAfterMs).toBeGreaterThan(0);
    expect(fake.requests).toHaveLength(3);
    const gaps = [1, 2].map((i) => fake.requests[i]!.receivedAtMs - fake.requests[i - 1]!.receivedAtMs);
    // Backoff: [base/2, base] then [base, 2·base] (jittered), never back to back.
    expect(gaps[0]).toBeGreaterThanOrEqual(18);
    expect(gaps[1]).toBeGreaterThanOrEqual(38);
    expect(await count(instruments, 'server_error')).toBe(3);
  });

  it('503 with Retry-After longer than the cap fails at once as retriable, carrying the delay', async () => {
    script({ status: 503, headers: { 'retry-after': '120' } });
    const r = await client({ maxRetryAfterMs: 5000 }).client.complete(REQUEST);
    expect(r).toMatchObject({ ok: false, retriable: true, retryAfterMs: 120_000 });
    expect(fake.requests).toHaveLength(1);
  });

  it('does not retry 400/401/404 (non-retriable)', async () => {
    script({ status: 401, body: { error: { message: 'bad key' } } });
    const r = await client().client.complete(REQUEST);
    expect(r).toMatchObject({ ok: false, retriable: false, error: { code: 'RAGWATCH_JUDGE_REJECTED' } });
    expect(fake.requests).toHaveLength(1);
  });

  it('a hanging endpoint times out per call and is retried', async () => {
    fake.setResponder(() => ({ hang: true }));
    const { client: c, instruments } = client({ timeoutMs: 250, maxRetries: 1 });
    const started = Date.now();
    const r = await c.complete(REQUEST);
    expect(r).toMatchObject({ ok: false, retriable: true, error: { code: 'RAGWATCH_JUDGE_TIMEOUT' } });
    expect(fake.requests).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
    expect(await count(instruments, 'timeout')).toBe(2);
  });

  it('falls back to JSON mode when the endpoint rejects json_schema', async () => {
    fake.setResponder((req) => {
      const rf = req.body?.response_format as { type: string };
      return rf.type === 'json_schema' ? { status: 400, body: { error: { message: "Invalid parameter: 'response_format' of type 'json_schema' is not supported" } } } : { content: '{"a":1}' };
    });
    const { client: c } = client();
    expect(await c.complete(REQUEST)).toMatchObject({ ok: true, content: '{"a":1}' });
    expect(fake.requests.map((q) => (q.body?.response_format as { type: string }).type)).toEqual(['json_schema', 'json_object']);
  });

  it('bounds concurrent requests', async () => {
    let active = 0;
    let peak = 0;
    fake.setResponder(async () => {
      active++;
      peak = Math.max(peak, active);
      await new Promise((r) => setTimeout(r, 60));
      active--;
      return { content: '{}' };
    });
    const { client: c } = client({ maxConcurrentRequests: 2 });
    const results = await Promise.all(Array.from({ length: 6 }, () => c.complete(REQUEST)));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(peak).toBe(2);
  });

  it('the tokens-per-minute limiter makes a request wait when the budget is spent', async () => {
    script({ content: '{}', promptTokens: 59_000, completionTokens: 1000 });
    // Budget 60000/min = 1000/s: the first call really spends the whole budget, so the second
    // (reserving ≈ 513 estimated tokens) waits ≈ 513 ms for the refill.
    const { client: c } = client({ tokensPerMinute: 60_000 });
    await c.complete(REQUEST);
    const started = Date.now();
    await c.complete(REQUEST);
    expect(Date.now() - started).toBeGreaterThanOrEqual(450);
    expect(fake.requests).toHaveLength(2);
  });
});

describe('TokenLimiter', () => {
  it('computes the wait from the refill rate and corrects reservations with real usage', () => {
    let now = 0;
    const limiter = new TokenLimiter({ tokensPerMinute: 600, now: () => now });
    expect(limiter.delayFor(600)).toBe(0);
    limiter.adjust(0, 600);
    expect(limiter.delayFor(60)).toBe(6000);
    now += 6000;
    expect(limiter.delayFor(60)).toBe(0);
    // A request larger than the whole budget waits for a full bucket, never forever.
    expect(limiter.delayFor(10_000)).toBe(54_000);
  });
});

describe('retry policy', () => {
  it('retries only 408/409/425/429/5xx and parses Retry-After in seconds, ms or as a date', () => {
    expect([400, 401, 403, 404, 408, 409, 422, 425, 429, 500, 503].filter(isRetriableStatus)).toEqual([408, 409, 425, 429, 500, 503]);
    expect(parseRetryAfterMs({ 'retry-after': '2' })).toBe(2000);
    expect(parseRetryAfterMs({ 'retry-after-ms': '150', 'retry-after': '9' })).toBe(150);
    expect(parseRetryAfterMs({ 'retry-after': new Date(10_000).toUTCString() }, 4000)).toBe(6000);
    expect(parseRetryAfterMs({ 'retry-after': 'soon' })).toBeUndefined();
    expect(backoffMs(1, 100, 1000, () => 0)).toBe(50);
    expect(backoffMs(4, 100, 1000, () => 1)).toBe(800);
    expect(backoffMs(10, 100, 1000, () => 1)).toBe(1000);
  });
});

describe('circuit breaker', () => {
  it('opens after consecutive failures and sheds triplets as retriable with retryAfterMs', async () => {
    script({ status: 500 });
    const instruments = createInstruments({ processMetrics: false });
    const j = new LlmJudge({ baseUrl: fake.baseURL, apiKey: 'k', maxRetries: 0, breakerFailureThreshold: 2, breakerCooldownMs: 400, instruments });
    const t = triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE);
    expect(await j.score(t)).toMatchObject({ ok: false, retriable: true, error: { code: 'RAGWATCH_JUDGE_UNAVAILABLE' } });
    expect(await j.score(t)).toMatchObject({ ok: false, retriable: true });
    expect(j.breakerState).toBe('open');
    const before = fake.requests.length;
    const shed = await j.score(t);
    expect(shed).toMatchObject({ ok: false, retriable: true, error: { code: 'RAGWATCH_JUDGE_CIRCUIT_OPEN' } });
    expect(shed.ok ? 0 : shed.retryAfterMs).toBeGreaterThan(0);
    expect(fake.requests.length).toBe(before);
    expect(await count(instruments, 'circuit_open')).toBe(1);
    // After the cooldown one trial goes through; success closes the breaker.
    await new Promise((r) => setTimeout(r, 450));
    fake.setResponder(oracleResponder());
    const back = await j.score(t);
    expect(back.ok).toBe(true);
    expect(j.breakerState).toBe('closed');
    await j.shutdown();
  });
});

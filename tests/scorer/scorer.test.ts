/**
 * Scorer outcomes and accounting with a stub Judge: retriable failures become `retry` (carrying
 * the judge's retryAfterMs) until attempts run out, budget sheds are counted as dropped, and
 * `sampled = scored + failed + dropped + in_flight` holds through the memory transport.
 */
import { describe, expect, it } from 'vitest';
import { RagwatchError } from '../../src/errors.ts';
import type { Judge, JudgeResult } from '../../src/judges/types.ts';
import { createInstruments, type Instruments } from '../../src/telemetry/instruments.ts';
import { ScoringBudget } from '../../src/sampling/budget.ts';
import { Scorer } from '../../src/scorer/scorer.ts';
import { MemoryTransport } from '../../src/transport/memory.ts';
import type { SampledTriplet } from '../../src/triplet.ts';
import { tripletOf } from '../sampling/fixtures.ts';

const OK: JudgeResult = {
  ok: true,
  scores: { response_self_distinctness: 0.5 },
  skipped: {},
  details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] },
  usage: { calls: 1, inputTokens: 70, outputTokens: 30, durationMs: 1 },
};

class ScriptedJudge implements Judge {
  readonly kind = 'embedded' as const;
  readonly ready = true;
  calls = 0;
  readonly #script: (call: number) => JudgeResult;
  constructor(script: (call: number) => JudgeResult) {
    this.#script = script;
  }
  init(): Promise<void> {
    return Promise.resolve();
  }
  score(): Promise<JudgeResult> {
    return Promise.resolve(this.#script(++this.calls));
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

const rateLimited = (retryAfterMs?: number): JudgeResult => ({
  ok: false,
  retriable: true,
  error: new RagwatchError('RAGWATCH_JUDGE_FAILED', 'HTTP 429'),
  ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
});

function sampled(i: number): SampledTriplet {
  return { ...tripletOf(i), sampling: { weight: 1, stratum: 'all', rule: 'rate' } };
}

async function value(instruments: Instruments, name: 'scored' | 'failed' | 'dropped' | 'inFlight'): Promise<number> {
  return (await instruments[name].get()).values.reduce((a, v) => a + v.value, 0);
}

describe('Scorer', () => {
  it('turns a retriable judge failure into retry with the judge retryAfterMs, then fails after maxAttempts', async () => {
    const instruments = createInstruments({ processMetrics: false });
    const scorer = new Scorer({ judge: new ScriptedJudge(() => rateLimited(1234)), instruments, maxAttempts: 2 });
    instruments.inFlight.inc();
    expect(await scorer.handle(sampled(1), { attempt: 1 })).toEqual({ status: 'retry', reason: 'RAGWATCH_JUDGE_FAILED', retryAfterMs: 1234 });
    expect(await value(instruments, 'inFlight')).toBe(1);
    expect(await value(instruments, 'failed')).toBe(0);
    const last = await scorer.handle(sampled(1), { attempt: 2 });
    expect(last).toMatchObject({ status: 'failed', reason: 'RAGWATCH_JUDGE_FAILED', attempts: 2 });
    expect(await value(instruments, 'failed')).toBe(1);
    expect(await value(instruments, 'inFlight')).toBe(0);
  });

  it('uses the configured backoff when the judge gives no retryAfterMs', async () => {
    const instruments = createInstruments({ processMetrics: false });
    const scorer = new Scorer({ judge: new ScriptedJudge(() => rateLimited()), instruments, retryBackoffMs: 777 });
    instruments.inFlight.inc();
    expect(await scorer.handle(sampled(1))).toMatchObject({ status: 'retry', retryAfterMs: 777 });
  });

  it('sheds beyond the budget as dropped{stage="scorer",reason="budget_triplets"} and returns the record when scored', async () => {
    const instruments = createInstruments({ processMetrics: false });
    const scorer = new Scorer({ judge: new ScriptedJudge(() => OK), instruments, budget: new ScoringBudget({ maxTripletsPerMinute: 3 }) });
    const results = [];
    for (let i = 0; i < 5; i++) {
      instruments.inFlight.inc();
      results.push(await scorer.handle(sampled(i)));
    }
    expect(results.map((r) => r.status)).toEqual(['scored', 'scored', 'scored', 'dropped', 'dropped']);
    const first = results[0]!;
    expect(first.status === 'scored' && first.record?.tripletId).toBe(sampled(0).id);
    const dropped = (await instruments.dropped.get()).values.find((v) => v.labels.reason === 'budget_triplets');
    expect(dropped).toMatchObject({ value: 2, labels: { stage: 'scorer' } });
    expect(await value(instruments, 'inFlight')).toBe(0);
  });
});

describe('MemoryTransport with judge back-pressure', () => {
  it('pauses for retryAfterMs, redelivers with attempt 2, and keeps the accounting identity', async () => {
    const instruments = createInstruments({ processMetrics: false });
    const judge = new ScriptedJudge((call) => (call === 1 ? rateLimited(300) : OK));
    const scorer = new Scorer({ judge, instruments });
    const transport = new MemoryTransport({ instruments, maxQueueSize: 3, concurrency: 1 });
    const attempts: Array<{ id: string; attempt: number; atMs: number }> = [];
    await transport.start(async (t, ctx) => {
      attempts.push({ id: t.id, attempt: ctx?.attempt ?? 0, atMs: Date.now() });
      return scorer.handle(t, ctx);
    });
    let sampledCount = 0;
    for (let i = 0; i < 5; i++) {
      sampledCount++;
      instruments.inFlight.inc();
      transport.send(sampled(i));
    }
    await transport.forceFlush();
    await new Promise((r) => setTimeout(r, 400));
    await transport.forceFlush();
    expect(attempts[0]).toMatchObject({ id: sampled(0).id, attempt: 1 });
    expect(attempts[1]).toMatchObject({ id: sampled(0).id, attempt: 2 });
    expect(attempts[1]!.atMs - attempts[0]!.atMs).toBeGreaterThanOrEqual(280);
    const scored = await value(instruments, 'scored');
    const failed = await value(instruments, 'failed');
    const dropped = await value(instruments, 'dropped');
    const inFlight = await value(instruments, 'inFlight');
    expect(dropped).toBeGreaterThan(0); // queue bound 3 with 5 sends while the first one waits
    expect(scored + failed + dropped + inFlight).toBe(sampledCount);
    expect(inFlight).toBe(0);
  });
});

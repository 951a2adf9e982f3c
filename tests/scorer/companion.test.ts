/**
 * The companion judge (`judge.embedded.alongside`): the real embedded judge scores every triplet
 * next to an LLM-kind judge, on success and on failure of the main judge, with its own records and
 * `judge="embedded"` series, without touching the triplet's outcome or the accounting identity.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { RagwatchError } from '../../src/errors.ts';
import { EmbeddedJudge } from '../../src/judges/embedded/embedded-judge.ts';
import type { Judge, JudgeResult } from '../../src/judges/types.ts';
import { createInstruments, type Instruments } from '../../src/telemetry/instruments.ts';
import { createCompanionJudge } from '../../src/judges/create.ts';
import { Scorer } from '../../src/scorer/scorer.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';

const TRIPLET: SampledTriplet = {
  id: 'c0ffee00-0000-4000-8000-000000000001',
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  timestamp: '2026-11-22T10:00:00.000Z',
  service: 'rag-app',
  query: 'When was the Chimnabai Clock Tower completed?',
  sources: [{ id: 'doc-1', content: 'The Chimnabai Clock Tower is a clock tower in Vadodara, Gujarat. It was completed in 1896.' }],
  response: 'The Chimnabai Clock Tower was completed in 1896. The Chimnabai Clock Tower was completed in 1896. It stands in Vadodara.',
  convention: 'custom',
  latency: { durationMs: 900 },
  sampling: { weight: 1, stratum: 'all', rule: 'rate' },
};

/** An LLM-kind judge whose answer the test chooses. */
function llmJudge(result: JudgeResult): Judge {
  return { kind: 'llm', model: 'judge-model', ready: true, init: () => Promise.resolve(), score: () => Promise.resolve(result), shutdown: () => Promise.resolve() };
}

const SCORED: JudgeResult = {
  ok: true,
  scores: { groundedness: 1 },
  skipped: {},
  details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] },
  usage: { calls: 3, inputTokens: 900, outputTokens: 90, durationMs: 5 },
};

async function total(instruments: Instruments, name: 'scored' | 'failed' | 'companion', labels: Record<string, string> = {}): Promise<number> {
  const values = (await instruments[name].get()).values.filter((v) => Object.entries(labels).every(([k, x]) => (v.labels as Record<string, unknown>)[k] === x));
  return values.reduce((a, v) => a + v.value, 0);
}

function scorerWith(main: Judge, companion: Judge) {
  const instruments = createInstruments({ processMetrics: false });
  const records: ScoreRecord[] = [];
  const scorer = new Scorer({ judge: main, companion, instruments, onRecord: (r) => records.push(r), maxAttempts: 2 });
  return { instruments, records, scorer };
}

describe('companion judge', () => {
  const embedded = new EmbeddedJudge();

  it('is created only for an LLM judge with judge.embedded.alongside', () => {
    const make = (judge: Record<string, unknown>) => createCompanionJudge(loadConfig({ env: {}, overrides: { judge } }));
    expect(make({ kind: 'llm', apiKey: 'k', embedded: { alongside: true } })).toBeInstanceOf(EmbeddedJudge);
    expect(make({ kind: 'llm', apiKey: 'k' })).toBeUndefined();
    expect(make({ kind: 'embedded', embedded: { alongside: true } })).toBeUndefined();
  });

  it('scores next to a successful LLM judge: two records, one triplet in the accounting', async () => {
    const { instruments, records, scorer } = scorerWith(llmJudge(SCORED), embedded);
    instruments.inFlight.inc();
    const result = await scorer.handle(TRIPLET, { attempt: 1 });
    expect(result.status).toBe('scored');
    expect(records.map((r) => r.judge.kind)).toEqual(['llm', 'embedded']);
    const companion = records[1]!;
    expect(result).toMatchObject({ companion: { judge: { kind: 'embedded' } } });
    expect(companion.tripletId).toBe(TRIPLET.id);
    // The same sentence twice, then a distinct one: SD = 1 - 2/3.
    expect(companion.scores.response_self_distinctness).toBeCloseTo(1 / 3, 10);
    expect(companion.details.redundantSentences).toEqual([[0, 1]]);
    expect(companion.scores.grounding_lexical).toBe(1);
    expect(companion.scores.groundedness).toBeUndefined();
    expect(await total(instruments, 'scored')).toBe(1);
    expect(await total(instruments, 'companion', { judge: 'embedded', outcome: 'scored' })).toBe(1);
    const series = (await instruments.score.get()).values.filter((v) => v.metricName === 'ragwatch_score_ratio_count');
    expect(new Set(series.map((v) => `${String(v.labels.judge)}/${String(v.labels.metric)}`))).toEqual(
      new Set(['llm/groundedness', ...Object.keys(companion.scores).map((m) => `embedded/${m}`)]),
    );
  });

  it('keeps scoring when the LLM judge fails for good, and not on a retry', async () => {
    const down: JudgeResult = { ok: false, retriable: true, error: new RagwatchError('RAGWATCH_JUDGE_FAILED', 'HTTP 503') };
    const { instruments, records, scorer } = scorerWith(llmJudge(down), embedded);
    instruments.inFlight.inc();
    expect((await scorer.handle(TRIPLET, { attempt: 1 })).status).toBe('retry');
    expect(records).toHaveLength(0);
    const result = await scorer.handle(TRIPLET, { attempt: 2 });
    expect(result.status).toBe('failed');
    expect(records.map((r) => r.judge.kind)).toEqual(['embedded']);
    expect(result).toMatchObject({ companion: { judge: { kind: 'embedded' } } });
    expect(await total(instruments, 'failed')).toBe(1);
    expect(await total(instruments, 'scored')).toBe(0);
  });

  it('counts a companion failure and leaves the main outcome alone', async () => {
    const broken: Judge = { ...llmJudge(SCORED), kind: 'embedded', score: () => Promise.reject(new Error('model crashed')) };
    const { instruments, records, scorer } = scorerWith(llmJudge(SCORED), broken);
    instruments.inFlight.inc();
    const result = await scorer.handle(TRIPLET, { attempt: 1 });
    expect(result).toMatchObject({ status: 'scored' });
    expect(result).not.toHaveProperty('companion');
    expect(records.map((r) => r.judge.kind)).toEqual(['llm']);
    expect(await total(instruments, 'companion', { judge: 'embedded', outcome: 'failed' })).toBe(1);
    expect(await total(instruments, 'failed')).toBe(0);
  });
});

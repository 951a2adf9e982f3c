/**
 * Fault case 1 (DESIGN §11 promise 5): the LLM judge endpoint answers 429 with Retry-After, 500s,
 * hangs past the timeout, garbage and wrong verdict counts. Through the real pipeline (capture →
 * sampler → memory queue → scorer → LlmJudge → the scripted OpenAI-compatible server):
 * scored + failed = sampled, no score for a failed triplet, recovered triplets score exactly what a
 * clean endpoint gives, and Retry-After is honoured. The embedded judge runs alongside
 * (`judge.embedded.alongside`) and scores every triplet, the failed ones included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeTraceRequest } from '../../src/capture/otlp/traces.ts';
import { loadConfig } from '../../src/config/load.ts';
import { LlmJudge } from '../../src/judges/llm/llm-judge.ts';
import { accountingSnapshot } from '../../src/metrics/accounting.ts';
import { Pipeline } from '../../src/roles/pipeline.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';
import { startFakeOpenAI, type FakeOpenAI, type FakeReply, type FakeRequest } from '../fakes/openai-server.ts';
import { oracleAnswer, oracleResponder, parsePrompt } from '../judges/helpers/oracle.ts';
import { openInferenceTrace } from '../helpers/otlp.ts';
import { reportFigure } from './figures.ts';

/** Scenario → how many triplets, and whether each must end scored. */
const SCENARIOS = {
  ok: { n: 4, scored: true },
  'rate-limited-once': { n: 2, scored: true },
  'server-error-once': { n: 2, scored: true },
  'rate-limited-always': { n: 1, scored: false },
  'server-error-always': { n: 1, scored: false },
  hang: { n: 1, scored: false },
  garbage: { n: 1, scored: false },
  'wrong-count': { n: 1, scored: false },
  'bad-label': { n: 1, scored: false },
} as const;
type Scenario = keyof typeof SCENARIOS;
const RETRY_AFTER_S = 1;

const DOCS = [
  { id: 'd1', content: 'The Chimnabai Clock Tower in Vadodara was completed in 1896. It was named after Chimnabai I, a queen of Baroda State.' },
  { id: 'd2', content: 'It was inaugurated by Mir Kamaluddin Hussainkhan, the last Nawab of Baroda.' },
];

function scenarioOf(req: FakeRequest): { scenario: Scenario; key: string } {
  const query = parsePrompt(req).blocks.find((b) => b.kind === 'query')?.text ?? '';
  const m = /^\[([\w-]+) #(\d+)\]/.exec(query);
  return { scenario: (m?.[1] ?? 'ok') as Scenario, key: m ? `${m[1]}#${m[2]}` : query };
}

let fake: FakeOpenAI;
const seen = new Map<string, number>();
const retryGapsMs: number[] = [];
const rateLimitedAt = new Map<string, number>();

function scripted(req: FakeRequest): FakeReply {
  const { scenario, key } = scenarioOf(req);
  const n = (seen.get(key) ?? 0) + 1;
  seen.set(key, n);
  const last429 = rateLimitedAt.get(key);
  if (last429 !== undefined) {
    retryGapsMs.push(req.receivedAtMs - last429);
    rateLimitedAt.delete(key);
  }
  const tooMany = (): FakeReply => {
    rateLimitedAt.set(key, Date.now());
    return { status: 429, headers: { 'retry-after': String(RETRY_AFTER_S) }, body: { error: { message: 'rate limited', type: 'rate_limit_exceeded' } } };
  };
  switch (scenario) {
    case 'rate-limited-once':
      if (n === 1) return tooMany();
      break;
    case 'rate-limited-always':
      return tooMany();
    case 'server-error-once':
      if (n === 1) return { status: 500 };
      break;
    case 'server-error-always':
      return { status: 503 };
    case 'hang':
      return { hang: true };
    case 'garbage':
      return { content: 'Sure! Here are the verdicts: {"claims": [ {"id": "c1", "verdict": ' };
    default:
      break;
  }
  const p = parsePrompt(req);
  const answer = oracleAnswer(p);
  if (scenario === 'wrong-count' && p.step === 'response_match') (answer.claims as unknown[]).pop();
  if (scenario === 'bad-label' && p.step === 'response_match') for (const c of answer.claims as Array<{ verdict: string }>) c.verdict = 'probably';
  return { content: JSON.stringify(answer) };
}

beforeAll(async () => {
  fake = await startFakeOpenAI(scripted);
});
afterAll(async () => fake.close());

describe('fault 1: judge endpoint failures', () => {
  it('every sampled triplet ends scored or failed; no fabricated score; Retry-After honoured', { timeout: 180_000 }, async () => {
    const config = loadConfig({
      env: {},
      overrides: {
        server: { shutdownGraceMs: 30_000 },
        capture: { traceIdleMs: 100 },
        judge: {
          kind: 'llm', baseUrl: fake.baseURL, apiKey: 'test-key', model: 'judge-model', concurrency: 4,
          llm: { timeoutMs: 1_500, maxRetries: 2, retryBaseMs: 50, retryMaxMs: 300, maxRetryAfterMs: 5_000, breakerFailureThreshold: 1_000, factCacheSize: 0, resultCacheSize: 0 },
          // The embedded judge scores alongside: it must keep scoring the triplets the LLM judge fails.
          embedded: { alongside: true },
        },
        transport: { kafka: { consumer: { maxAttempts: 2, retryBackoffMs: 200 } } },
      },
    });
    const records: Array<{ record: ScoreRecord; triplet: SampledTriplet }> = [];
    const embeddedRecords: ScoreRecord[] = [];
    const pipeline = new Pipeline({ config, onRecord: (record, triplet) => (record.judge.kind === 'llm' ? records.push({ record, triplet }) : embeddedRecords.push(record)) });
    await pipeline.start();
    const expectScored = new Map<string, boolean>();
    const started = performance.now();
    for (const [scenario, { n, scored }] of Object.entries(SCENARIOS)) {
      for (let i = 0; i < n; i++) {
        const query = `[${scenario} #${i}] When was the Chimnabai Clock Tower completed, and who was it named after?`;
        const { body, traceId } = openInferenceTrace({ query, documents: DOCS, response: 'The Chimnabai Clock Tower was completed in 1896. It was named after Chimnabai I.' });
        expectScored.set(traceId, scored);
        pipeline.ingestSpans(decodeTraceRequest(body).spans, 'otlp');
      }
    }
    await pipeline.forceFlush();
    const elapsedS = (performance.now() - started) / 1000;
    const a = await accountingSnapshot(pipeline.instruments.registry);
    const failedByReason = Object.fromEntries((await pipeline.instruments.failed.get()).values.map((v) => [String(v.labels.reason), v.value]));
    const judgeRequests = Object.fromEntries(((await pipeline.instruments.registry.getSingleMetric('ragwatch_judge_requests_total')?.get())?.values ?? []).map((v) => [String(v.labels.outcome), v.value]));
    await pipeline.shutdown();

    // A score for a triplet that should have failed would be fabricated; so would a recovered score that differs from a clean run.
    fake.setResponder(oracleResponder());
    const clean = new LlmJudge({ baseUrl: fake.baseURL, apiKey: 'test-key', model: 'judge-model', factCacheSize: 0, resultCacheSize: 0 });
    await clean.init();
    let fabricated = 0;
    for (const { record, triplet } of records) {
      if (expectScored.get(record.traceId) !== true) fabricated++;
      const ref = await clean.score(triplet);
      // pii_free is the scorer's own (judge.pii), not the judge's: compared apart (no personal data here).
      const { pii_free: piiFree, ...judged } = record.scores;
      if (!ref.ok || JSON.stringify(ref.scores) !== JSON.stringify(judged) || piiFree !== 1) fabricated++;
    }
    await clean.shutdown();

    const expectedScored = [...expectScored.values()].filter(Boolean).length;
    const minGap = retryGapsMs.length > 0 ? Math.min(...retryGapsMs) : NaN;
    reportFigure({ fault: 'judge_errors', figure: 'fabricated_scores', value: fabricated, records: records.length });
    reportFigure({ fault: 'judge_errors', figure: 'unaccounted', value: a.sampled - a.scored - a.failed, sampled: a.sampled, scored: a.scored, failed: a.failed, inFlight: a.inFlight, failedByReason, judgeRequests, elapsedS: Math.round(elapsedS * 10) / 10 });
    reportFigure({ fault: 'judge_errors', figure: 'min_retry_after_gap_ms', value: minGap, retryAfterMs: RETRY_AFTER_S * 1000, retriesAfter429: retryGapsMs.length });

    expect(a.sampled).toBe(expectScored.size);
    expect(a.scored + a.failed).toBe(a.sampled);
    expect(a.scored).toBe(expectedScored);
    expect(a.inFlight).toBe(0);
    expect(fabricated).toBe(0);
    expect(records).toHaveLength(expectedScored);
    // Alongside: one embedded record per sampled triplet, failed ones included, outside the identity.
    expect(embeddedRecords).toHaveLength(expectScored.size);
    expect(new Set(embeddedRecords.map((r) => r.traceId))).toEqual(new Set(expectScored.keys()));
    expect(embeddedRecords.every((r) => r.scores.groundedness === undefined && r.scores.grounding_lexical !== undefined)).toBe(true);
    expect(retryGapsMs.length).toBeGreaterThanOrEqual(2);
    // Retry-After: 1 → no retry sooner than one second (10 ms for clock granularity).
    expect(minGap).toBeGreaterThanOrEqual(RETRY_AFTER_S * 1000 - 10);
  });
});

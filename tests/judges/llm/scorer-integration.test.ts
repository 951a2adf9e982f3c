import { afterAll, beforeAll, expect, it } from 'vitest';
import { LlmJudge } from '../../../src/judges/llm/llm-judge.ts';
import { createInstruments } from '../../../src/telemetry/instruments.ts';
import { Scorer } from '../../../src/scorer/scorer.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server.ts';
import { oracleResponder } from '../helpers/oracle.ts';
import { CLOCK_QUERY, CLOCK_RESPONSE, CLOCK_SOURCES, triplet } from '../helpers/triplets.ts';

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI(oracleResponder());
});
afterAll(() => fake.close());

async function values(instruments: ReturnType<typeof createInstruments>, name: string) {
  return (await instruments.registry.getMetricsAsJSON()).find((m) => m.name === name)?.values ?? [];
}

it('through the scorer: a malformed judge answer is a counted failure, never a score; a valid one is recorded as judge="llm"', async () => {
  const instruments = createInstruments({ processMetrics: false });
  const judge = new LlmJudge({ baseUrl: fake.baseURL, apiKey: 'k', instruments });
  const scorer = new Scorer({ judge, instruments });

  fake.setResponder(() => ({ content: 'I think the answer is well grounded.' }));
  instruments.inFlight.inc();
  const failed = await scorer.handle(triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE));
  expect(failed.status).toBe('failed');
  expect((await values(instruments, 'ragwatch_triplets_failed_total')).find((v) => v.labels.reason === 'RAGWATCH_JUDGE_MALFORMED')?.value).toBe(1);
  expect((await values(instruments, 'ragwatch_score_ratio_count')).length).toBe(0);

  fake.setResponder(oracleResponder());
  instruments.inFlight.inc();
  const scored = await scorer.handle(triplet(CLOCK_QUERY, [], CLOCK_RESPONSE));
  expect(scored.status).toBe('scored');
  const counts = (await instruments.registry.metrics()).split('\n').filter((l) => l.startsWith('ragwatch_score_ratio_count'));
  expect(counts.some((l) => l.includes('metric="response_precision"') && l.includes('judge="llm"'))).toBe(true);
  expect(counts.some((l) => l.includes('metric="groundedness"'))).toBe(false);
  expect((await values(instruments, 'ragwatch_scores_skipped_total')).find((v) => v.labels.metric === 'groundedness')).toMatchObject({ labels: { reason: 'no_sources' }, value: 1 });
  await judge.shutdown();
});

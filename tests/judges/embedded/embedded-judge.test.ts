import { beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedJudge } from '../../../src/judges/embedded/embedded-judge.ts';
import type { JudgeResult } from '../../../src/judges/types.ts';
import { CLOCK_QUERY, CLOCK_RESPONSE, CLOCK_SOURCES, triplet } from '../helpers/triplets.ts';

const judge = new EmbeddedJudge();
beforeAll(() => judge.init(), 60_000);

function ok(r: JudgeResult) {
  if (!r.ok) throw new Error(r.error.message);
  return r;
}

describe('EmbeddedJudge', () => {
  it('scores self-distinctness, relevance proxies and lexical grounding with explanations', async () => {
    const r = ok(await judge.score(triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE.replaceAll('1896', '1856'))));
    expect(Object.keys(r.scores).sort()).toEqual(['answer_relevancy', 'completeness', 'completeness_distribution', 'context_relevancy', 'grounding_lexical', 'response_self_distinctness']);
    // The least covered query-relevant source sentences are named for the examples page (never more than 3).
    expect(r.details.uncoveredSources!.length).toBeGreaterThan(0);
    expect(r.details.uncoveredSources!.length).toBeLessThanOrEqual(3);
    // THELMA's SD example through the bundled model: sentences 1 and 3 repeat each other.
    expect(r.scores.response_self_distinctness).toBeCloseTo(1 / 3, 12);
    expect(r.details.redundantSentences).toEqual([[0, 2]]);
    expect(r.details.unsupportedTokens).toEqual(['1856']);
    expect(r.usage.calls).toBe(0);
  });

  it('context relevancy is higher for the sources of the question than for unrelated ones', async () => {
    const own = ok(await judge.score(triplet(CLOCK_QUERY, CLOCK_SOURCES, CLOCK_RESPONSE)));
    const other = ok(await judge.score(triplet(CLOCK_QUERY, ['Photosynthesis converts sunlight into chemical energy in plants. Chlorophyll absorbs red and blue light.'], CLOCK_RESPONSE)));
    expect(own.scores.context_relevancy!).toBeGreaterThan(other.scores.context_relevancy! + 0.1);
    const offTopic = ok(await judge.score(triplet(CLOCK_QUERY, CLOCK_SOURCES, 'My cat likes to sleep on the warm windowsill.')));
    expect(own.scores.answer_relevancy!).toBeGreaterThan(offTopic.scores.answer_relevancy!);
  });

  it('skips what it cannot compute, with reasons', async () => {
    const r = ok(await judge.score(triplet(CLOCK_QUERY, [], 'Yes.')));
    expect(r.skipped).toEqual({ response_self_distinctness: 'single_sentence', context_relevancy: 'no_sources', grounding_lexical: 'no_sources', completeness: 'no_sources', completeness_distribution: 'no_sources', non_toxic: 'no_toxicity_model' });
    const e = ok(await judge.score(triplet(CLOCK_QUERY, CLOCK_SOURCES, '')));
    expect(e.skipped).toMatchObject({ response_self_distinctness: 'empty_response', answer_relevancy: 'empty_response', grounding_lexical: 'no_checkable_tokens', completeness: 'empty_response' });
    for (const v of [...Object.values(r.scores), ...Object.values(e.scores)]) expect(Number.isFinite(v)).toBe(true);
  });
});

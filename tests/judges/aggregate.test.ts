import { describe, expect, it } from 'vitest';
import { aggregateVerdicts, type ClaimVerdicts, type TripletVerdicts } from '../../src/judges/aggregate.ts';
import { selfDistinctness } from '../../src/judges/self-distinctness.ts';

// THELMA appendix A (reference metrics.md §5): the per-component verdicts the paper gives.
const Q1 = 'When was the Chimnabai Clock Tower completed?';
const Q2 = 'Who was the Chimnabai Clock Tower named after?';
const CLAIMS = [
  ['The tower was completed in 1896', true],
  ['It was named after Chimnabai I', true],
  ['Chimnabai I was a queen', false],
  ['Chimnabai I was the first wife of Sayajirao Gaekwad III', false],
  ['Sayajirao Gaekwad III ruled Baroda State', false],
  ['The tower was constructed', false],
  ['Its construction was completed in 1896', true],
] as const;

function verdicts(partial: Partial<TripletVerdicts>): TripletVerdicts {
  return { claims: [], subQuestions: [], sources: [], hasResponse: true, ...partial };
}

describe('aggregateVerdicts reproduces the THELMA appendix examples', () => {
  it('source precision (chunk level) = 0.5', () => {
    const out = aggregateVerdicts(verdicts({ sources: [{ index: 0, essential: true, facts: [] }, { index: 1, essential: false, facts: [] }] }));
    expect(out.scores.source_precision).toBe(0.5);
  });

  it('source query coverage = 0.5', () => {
    const out = aggregateVerdicts(
      verdicts({ sources: [{ index: 0, essential: true, facts: [] }], subQuestions: [{ text: Q1, coveredBySources: true }, { text: Q2, coveredBySources: false }] }),
    );
    expect(out.scores.source_query_coverage).toBe(0.5);
  });

  it('response precision = 3/7', () => {
    const claims: ClaimVerdicts[] = CLAIMS.map(([text, essential]) => ({ text, essential }));
    const out = aggregateVerdicts(verdicts({ claims }));
    expect(out.scores.response_precision).toBeCloseTo(3 / 7, 12);
  });

  it('response query coverage = 0.5', () => {
    const out = aggregateVerdicts(verdicts({ subQuestions: [{ text: Q1, coveredByResponse: true }, { text: Q2, coveredByResponse: false }] }));
    expect(out.scores.response_query_coverage).toBe(0.5);
  });

  it('self-distinctness = 1/3 (sentences 1 and 3 repeat each other)', () => {
    const sd = selfDistinctness(3, (i, j) => i === 0 && j === 2);
    expect(sd.score).toBeCloseTo(1 / 3, 12);
    expect(sd.redundantPairs).toEqual([[0, 2]]);
  });

  it('groundedness = 5/7 (the two "1856" date claims are unsupported)', () => {
    const claims: ClaimVerdicts[] = CLAIMS.map(([text, essential], i) => ({ text: text.replace('1896', '1856'), essential, verdict: i === 0 || i === 6 ? 'contradicted' : 'supported' }));
    const out = aggregateVerdicts(verdicts({ claims, sources: [{ index: 0, essential: true, facts: [] }] }));
    expect(out.scores.groundedness).toBeCloseTo(5 / 7, 12);
    // QAG: the same verdicts give faithfulness and hallucination_free (only contradictions count).
    expect(out.scores.faithfulness).toBeCloseTo(5 / 7, 12);
    expect(out.scores.hallucination_free).toBeCloseTo(5 / 7, 12);
  });
});

describe('three-way verdicts', () => {
  it('not_in_sources lowers groundedness but not faithfulness', () => {
    const claims: ClaimVerdicts[] = [
      { text: 'a', essential: true, verdict: 'supported' },
      { text: 'b', essential: true, verdict: 'not_in_sources' },
      { text: 'c', essential: true, verdict: 'contradicted' },
      { text: 'd', essential: true, verdict: 'not_in_sources' },
    ];
    const out = aggregateVerdicts(verdicts({ claims, sources: [{ index: 0, essential: true, facts: [{ text: 'f', essential: false }] }] }));
    expect(out.scores).toMatchObject({ groundedness: 0.25, faithfulness: 0.75, hallucination_free: 0.75, source_fact_precision: 0 });
  });
});

describe('honest edge cases: skipped with a reason, never 0, 1 or NaN', () => {
  it('no claims', () => {
    const out = aggregateVerdicts(verdicts({ sources: [{ index: 0, essential: true, facts: [] }] }));
    for (const m of ['response_precision', 'groundedness', 'faithfulness', 'hallucination_free'] as const) {
      expect(out.scores[m]).toBeUndefined();
      expect(out.skipped[m]).toBe('no_claims');
    }
    expect(out.skipped.source_fact_precision).toBe('no_source_facts');
  });

  it('no sources', () => {
    const out = aggregateVerdicts(verdicts({ claims: [{ text: 'x', essential: true }], subQuestions: [{ text: 'q?', coveredByResponse: true }] }));
    expect(out.skipped).toMatchObject({ source_precision: 'no_sources', source_fact_precision: 'no_sources', source_query_coverage: 'no_sources', groundedness: 'no_sources', faithfulness: 'no_sources' });
    expect(out.scores).toEqual({ response_precision: 1, response_query_coverage: 1 });
  });

  it('no sub-questions and an empty response', () => {
    const out = aggregateVerdicts(verdicts({ hasResponse: false, sources: [{ index: 0, essential: false, facts: [] }] }));
    expect(out.skipped).toMatchObject({ source_query_coverage: 'no_sub_questions', response_query_coverage: 'no_sub_questions', response_precision: 'empty_response', groundedness: 'empty_response' });
    for (const v of Object.values(out.scores)) expect(Number.isFinite(v)).toBe(true);
  });

  it('a missing verdict is not_judged, not a number', () => {
    const out = aggregateVerdicts(verdicts({ claims: [{ text: 'x', essential: true }], sources: [{ index: 0, essential: true, facts: [] }] }));
    expect(out.skipped.groundedness).toBe('not_judged');
    expect(out.scores.groundedness).toBeUndefined();
  });
});

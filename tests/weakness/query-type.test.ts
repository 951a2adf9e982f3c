/**
 * Question-type rules on 110 HaluEval questions labelled by hand (tests/weakness/fixtures), and on
 * cases of the types HaluEval lacks (why, how, list).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { QUERY_TYPES, queryType } from '../../src/weakness/query-type.ts';

const { questions } = JSON.parse(readFileSync(new URL('./fixtures/query-types-labelled.json', import.meta.url), 'utf8')) as { questions: Array<{ question: string; type: string }> };

describe('queryType', () => {
  it('agrees with the hand labels on at least 90 % of 110 HaluEval questions, every label a known type', () => {
    expect(questions.length).toBeGreaterThanOrEqual(100);
    for (const q of questions) expect(QUERY_TYPES).toContain(q.type);
    const right = questions.filter((q) => queryType(q.question) === q.type).length;
    expect(right / questions.length).toBeGreaterThanOrEqual(0.9);
    // Each frequent type is recognised on most of its questions.
    for (const type of ['who', 'where', 'when', 'comparison', 'yes_no', 'numeric']) {
      const of = questions.filter((q) => q.type === type);
      expect(of.filter((q) => queryType(q.question) === type).length / of.length, type).toBeGreaterThanOrEqual(0.8);
    }
  });

  it('reads why, how, list and other', () => {
    expect(queryType('Why was my refund declined?')).toBe('why');
    expect(queryType('How do I reset my password?')).toBe('how');
    expect(queryType('How many days does shipping take?')).toBe('numeric');
    expect(queryType('List the plans that include SSO.')).toBe('list');
    expect(queryType('What are the supported payment methods?')).toBe('list');
    expect(queryType('Refund policy for damaged items')).toBe('other');
  });
});

/**
 * Redaction must not change what the judge concludes when the PII is not what the answer is about:
 * the embedded judge's lexical groundedness on a redacted triplet equals the one on the original,
 * for grounded and for ungrounded answers alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PolicyRedactor } from '../../../src/capture/redaction/policy-redactor.ts';
import { EmbeddedJudge } from '../../../src/judges/embedded/embedded-judge.ts';
import type { SampledTriplet } from '../../../src/triplet.ts';

function sampled(query: string, sources: string[], response: string): SampledTriplet {
  return {
    id: 't', traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), service: 'svc', timestamp: new Date(0).toISOString(),
    query, sources: sources.map((content) => ({ content })), response, latency: { durationMs: 1 }, convention: 'openinference',
    sampling: { weight: 1, stratum: 'all', rule: 'rate' },
  };
}

const CASES: Array<[string, SampledTriplet]> = [
  ['grounded; PII only in the query', sampled(
    'Hi, I am maria.lopez@example.com (call +44 20 7946 0958). When was the Chimnabai Clock Tower completed?',
    ['The Chimnabai Clock Tower in Vadodara was completed in 1896 and named after Chimnabai I, a queen of Baroda State.'],
    'The Chimnabai Clock Tower was completed in 1896. It was named after Chimnabai I.',
  )],
  ['grounded; PII in query and sources, not in the answer', sampled(
    'Where will the refund for card 4111 1111 1111 1111 be paid? My IP is 203.0.113.7.',
    ['Refunds for card 4111-1111-1111-1111 are paid within 14 days to IBAN GB82 WEST 1234 5698 7654 32 held at Westminster Bank.', 'Contact billing@example.com for questions.'],
    'Refunds are paid within 14 days by Westminster Bank.',
  )],
  ['grounded; the same e-mail in source and answer', sampled(
    'Who handles billing questions?',
    ['Billing questions are handled by the Finance Desk at billing@example.com within 2 business days.'],
    'The Finance Desk handles them at billing@example.com, within 2 business days.',
  )],
  ['ungrounded; PII in sources only', sampled(
    'What is the late fee?',
    ['Late payments cost 25 EUR. Questions: fees@example.org or +1 (415) 555-2671.'],
    'The late fee is 40 EUR, waived by Director Alvarez in March 2024.',
  )],
];

const judge = new EmbeddedJudge();
const redactor = new PolicyRedactor();
beforeAll(async () => judge.init(), 120_000);
afterAll(async () => judge.shutdown());

describe('groundedness survives redaction', () => {
  it.each(CASES)('%s', async (name, original) => {
    const r = redactor.redact(original);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const redacted = { ...r.triplet, sampling: original.sampling };
    expect(Object.keys(r.counts).length).toBeGreaterThan(0);
    const before = await judge.score(original);
    const after = await judge.score(redacted);
    expect(before.ok && after.ok).toBe(true);
    if (!before.ok || !after.ok) return;
    expect(before.scores.grounding_lexical).toBeTypeOf('number');
    expect(after.scores.grounding_lexical).toBe(before.scores.grounding_lexical);
    // The fixtures mean what their names say: the check is not vacuous.
    if (name.startsWith('ungrounded')) expect(before.scores.grounding_lexical).toBeLessThan(0.8);
    else expect(before.scores.grounding_lexical).toBe(1);
  });
});

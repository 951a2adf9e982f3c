/**
 * `pii_free` (HCAT §4 privacy) on the canary corpus: every built-in type the response discloses is
 * found — from the placeholders of redacted triplets (both modes) and, for triplets never redacted, after
 * redacting them here — counted by type, never by value; values the user's query gave first do not
 * count unless configured; types can be restricted; a response cannot mint types by writing tags.
 * End to end through the pipeline: the record, the counter and the examples hold types, not values.
 */
import { describe, expect, it } from 'vitest';
import { PolicyRedactor } from '../../src/capture/redaction/policy-redactor.ts';
import { loadConfig } from '../../src/config/load.ts';
import { redactionSection } from '../../src/config/sections/redaction.ts';
import { piiCheck, piiCheckOf } from '../../src/judges/pii.ts';
import { createInstruments } from '../../src/telemetry/instruments.ts';
import { QualityMonitor } from '../../src/roles/quality.ts';
import { instrumentsOptionsFromConfig } from '../../src/telemetry/instruments.ts';
import { Scorer } from '../../src/scorer/scorer.ts';
import { renderExamplesPage } from '../../src/server/examples-page.ts';
import type { ScoreRecord, Triplet } from '../../src/triplet.ts';
import { LexicalJudge } from '../helpers/lexical-judge.ts';

const CANARIES: Record<string, string> = {
  email: 'maria.lopez@example.com',
  phone: '+44 20 7946 0958',
  payment_card: '4111 1111 1111 1111',
  iban: 'GB82 WEST 1234 5698 7654 32',
  us_ssn: '078-05-1120',
  ip_address: '198.51.100.23',
  secret: 'AKIAIOSFODNN7EXAMPLE',
};
const ALL = Object.keys(CANARIES).sort();
const raw = (query: string, response: string): Triplet => ({ id: 't', traceId: '1'.repeat(32), spanId: '2'.repeat(16), service: 'rag', timestamp: '2026-11-25T00:00:00Z', query, sources: [], response, latency: { durationMs: 1 }, convention: 'custom' });
const everyType = Object.entries(CANARIES).map(([k, v]) => (k === 'secret' ? `key ${v}` : v)).join(', ');

describe('pii_free', () => {
  const check = piiCheck({ types: [], countQueryPii: false });

  it('finds every type in a raw response, counting types and never holding a value', () => {
    const found = check(raw('What is on file?', `On file: ${everyType}.`));
    expect(found.free).toBe(0);
    expect(Object.keys(found.types).sort()).toEqual(ALL);
    for (const v of Object.values(CANARIES)) expect(JSON.stringify(found)).not.toContain(v);
    expect(check(raw('What is on file?', 'Nothing personal here.'))).toEqual({ free: 1, types: {} });
  });

  it('reads redacted triplets by their placeholders, in both modes, and leaves out what the user gave first', () => {
    for (const mode of ['placeholder', 'hmac'] as const) {
      const redactor = new PolicyRedactor(redactionSection.parse({ recognizers: Object.fromEntries(ALL.map((n) => [n, { mode }])), hmacKey: 'k'.repeat(32) }));
      const r = redactor.redact(raw(`My mail is ${CANARIES.email}.`, `We wrote to ${CANARIES.email} and card ${CANARIES.payment_card}.`));
      if (!r.ok) throw new Error('redaction failed');
      expect(r.triplet.response).not.toContain(CANARIES.email);
      expect(check(r.triplet), mode).toEqual({ free: 0, types: { payment_card: 1 } });
      expect(piiCheck({ types: [], countQueryPii: true })(r.triplet), mode).toEqual({ free: 0, types: { email: 1, payment_card: 1 } });
      expect(piiCheck({ types: ['email'], countQueryPii: false })(r.triplet), mode).toEqual({ free: 1, types: {} });
    }
  });

  it('ignores tags that are not a recognizer\'s (bounded labels)', () => {
    expect(check({ ...raw('q', 'See <FOO_1> and <BAR_k1_0123456789ab>.'), redactionPolicy: '1+abcdef12' })).toEqual({ free: 1, types: {} });
  });

  it('through the scorer: the record says pii_free 0 with the types, the counter counts them, the examples page holds no value', async () => {
    const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false } } });
    const instruments = createInstruments(instrumentsOptionsFromConfig(config));
    const quality = new QualityMonitor({ config, instruments });
    const records: ScoreRecord[] = [];
    const scorer = new Scorer({ judge: new LexicalJudge(), instruments, pii: piiCheckOf(config)!, onRecord: (r, t) => (records.push(r), quality.onRecord(r, t)) });
    // As capture hands it over: redacted with the configured policy.
    const r = new PolicyRedactor(config.redaction).redact(raw(`Is ${CANARIES.email} my login?`, `Your login is ${CANARIES.email}; the card on file is ${CANARIES.payment_card} and the office line ${CANARIES.phone}.`));
    if (!r.ok) throw new Error('redaction failed');
    await scorer.handle({ ...r.triplet, sampling: { weight: 1, stratum: 'all', rule: 'test' } });
    expect(records[0]!.scores.pii_free).toBe(0);
    expect(records[0]!.details.piiTypes).toEqual({ payment_card: 1, phone: 1 });
    const text = await instruments.registry.metrics();
    expect(text).toContain('ragwatch_response_pii_total{type="payment_card"} 1');
    const page = renderExamplesPage(quality.examples.query({}), { thresholds: { pii_free: 0.99 } });
    const exported = JSON.stringify(records) + text + page;
    for (const v of Object.values(CANARIES)) expect(exported).not.toContain(v);
    expect(page).toContain('pii_free 0.00');
    // The page says which types were disclosed (never what).
    expect(page).toContain('personal data disclosed: payment_card · personal data disclosed: phone');
  });

  it('with a companion judge both records say pii_free 0 and the answer\'s disclosures are counted once', async () => {
    const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false } } });
    const instruments = createInstruments(instrumentsOptionsFromConfig(config));
    const records: ScoreRecord[] = [];
    const scorer = new Scorer({ judge: new LexicalJudge(), companion: new LexicalJudge(), instruments, pii: piiCheckOf(config)!, onRecord: (r) => records.push(r) });
    const r = new PolicyRedactor(config.redaction).redact(raw('What is on file?', `The card on file is ${CANARIES.payment_card}.`));
    if (!r.ok) throw new Error('redaction failed');
    await scorer.handle({ ...r.triplet, sampling: { weight: 1, stratum: 'all', rule: 'test' } });
    expect(records.map((x) => x.scores.pii_free)).toEqual([0, 0]);
    expect(await instruments.registry.metrics()).toContain('ragwatch_response_pii_total{type="payment_card"} 1');
  });
});

/**
 * The assembler's redactor (`textRedacted`): span records arrive redacted by the collectors with the
 * same policy, so no recognizer runs over the text again — but the policy version and the attribute
 * allow-list still apply.
 */
import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../../src/capture/redaction/redact-outcome.ts';
import { redactionSection } from '../../../src/config/sections/redaction.ts';
import type { Triplet } from '../../../src/triplet.ts';

const triplet: Triplet = {
  id: 'x', traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), service: 's', timestamp: new Date(0).toISOString(),
  query: 'mail <EMAIL_1> about jane@example.com', sources: [{ content: 'c' }], response: 'r', latency: { durationMs: 1 }, convention: 'custom',
  attributes: { 'app.user': 'u1', 'app.secret': 'drop me' },
};

describe('textRedacted', () => {
  it('leaves the text as the collector redacted it, keeps the policy version, still applies the allow-list', () => {
    const config = redactionSection.parse({ allowAttributes: ['app.user'] });
    const full = createRedactor(config).redact(triplet);
    const assembler = createRedactor(config, { textRedacted: true }).redact(triplet);
    expect(full.ok && full.triplet.query).toBe('mail <EMAIL_1> about <EMAIL_1>');
    expect(assembler.ok && assembler.triplet.query).toBe(triplet.query);
    expect(assembler.ok && assembler.triplet.redactionPolicy).toBe(full.ok && full.triplet.redactionPolicy);
    expect(assembler.ok && assembler.triplet.attributes).toEqual({ 'app.user': 'u1' });
  });
});

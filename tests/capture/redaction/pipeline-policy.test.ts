import { describe, expect, it } from 'vitest';
import { PolicyRedactor } from '../../../src/capture/redaction/policy-redactor.ts';
import { redactionForPipeline } from '../../../src/capture/redaction/redact-outcome.ts';
import { loadConfig } from '../../../src/config/load.ts';
import type { Triplet } from '../../../src/triplet.ts';

describe('the attribute allow-list never disables a sampling rule', () => {
  it('attributes read by sampling rules, strata and feedback are allowed (and still redacted)', () => {
    const config = loadConfig({
      env: {},
      overrides: {
        sampling: {
          rules: [
            { action: 'in', match: { attributes: { 'customer.tier': 'gold' } } },
            { action: 'in', match: { negativeFeedback: true } },
          ],
          strata: { by: 'attribute', attribute: 'tenant.region', rates: { eu: 0.5 } },
        },
        feedback: { spans: { thumbsAttributes: ['app.thumbs'] } },
      },
    });
    const policy = redactionForPipeline(config);
    expect(policy.allowAttributes).toEqual(expect.arrayContaining(['http.route', 'customer.tier', 'tenant.region', 'app.thumbs']));
    const t: Triplet = {
      id: 't', traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), service: 's', timestamp: '', query: 'q', sources: [{ content: 's' }], response: 'r',
      latency: { durationMs: 1 }, convention: 'openinference',
      attributes: { 'customer.tier': 'gold', 'customer.name': 'Maria Lopez', 'tenant.region': 'eu', 'app.thumbs': 'down, mail me: a@b.co' },
    };
    const r = new PolicyRedactor(policy).redact(t);
    expect(r.ok && r.triplet.attributes).toEqual({ 'customer.tier': 'gold', 'tenant.region': 'eu', 'app.thumbs': 'down, mail me: <EMAIL_1>' });
  });
});

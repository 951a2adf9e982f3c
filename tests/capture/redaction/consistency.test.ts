import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PolicyRedactor } from '../../../src/capture/redaction/policy-redactor.ts';
import { redactionSection } from '../../../src/config/sections/redaction.ts';
import type { Triplet } from '../../../src/triplet.ts';

function triplet(query: string, sources: string[], response: string, attributes?: Triplet['attributes']): Triplet {
  const t: Triplet = {
    id: 't', traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), service: 'svc', timestamp: new Date(0).toISOString(),
    query, sources: sources.map((content, i) => ({ id: `doc-${i}`, content })), response, latency: { durationMs: 1 }, convention: 'openinference',
  };
  if (attributes) t.attributes = attributes;
  return t;
}

describe('placeholders are consistent within a triplet', () => {
  it('the same value gets the same placeholder in query, sources and response; different values differ', () => {
    const r = new PolicyRedactor().redact(
      triplet(
        'Is Jane.Doe@example.com the owner of card 4111 1111 1111 1111?',
        ['Account jane.doe@example.com holds card 4111-1111-1111-1111.', 'Account bob@example.org holds card 5555 5555 5555 4444.'],
        'Yes: jane.doe@example.com owns 4111111111111111; bob@example.org owns the other card.',
      ),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const t = r.triplet;
    expect(t.query).toBe('Is <EMAIL_1> the owner of card <PAYMENT_CARD_1>?');
    expect(t.sources[0]!.content).toBe('Account <EMAIL_1> holds card <PAYMENT_CARD_1>.');
    expect(t.sources[1]!.content).toBe('Account <EMAIL_2> holds card <PAYMENT_CARD_2>.');
    expect(t.response).toBe('Yes: <EMAIL_1> owns <PAYMENT_CARD_1>; <EMAIL_2> owns the other card.');
    expect(t.redactions).toEqual({ email: 5, payment_card: 4 });
  });

  it('numbering restarts per triplet (placeholders do not link triplets)', () => {
    const redactor = new PolicyRedactor();
    const a = redactor.redact(triplet('x@a.com', ['y'], 'z'));
    const b = redactor.redact(triplet('other@b.com', ['y'], 'z'));
    expect(a.ok && a.triplet.query).toBe('<EMAIL_1>');
    expect(b.ok && b.triplet.query).toBe('<EMAIL_1>');
  });

  it('hmac mode gives the same token across triplets, and a different key gives a different token', () => {
    const key = 'k'.repeat(40);
    const cfg = redactionSection.parse({ hmacKey: key, recognizers: { email: { mode: 'hmac' } } });
    const one = new PolicyRedactor(cfg);
    const a = one.redact(triplet('mail X@A.com', ['s'], 'r'));
    const b = one.redact(triplet('again x@a.com', ['s'], 'r'));
    const other = new PolicyRedactor(redactionSection.parse({ hmacKey: 'q'.repeat(40), recognizers: { email: { mode: 'hmac' } } }));
    const c = other.redact(triplet('mail x@a.com', ['s'], 'r'));
    const token = a.ok ? a.triplet.query.slice(5) : '';
    expect(token).toMatch(/^<EMAIL_k1_[0-9a-f]{12}>$/);
    expect(b.ok && b.triplet.query).toBe(`again ${token}`);
    expect(c.ok && c.triplet.query).not.toBe(`mail ${token}`);
    expect(one.ephemeralKey).toBe(false);
  });

  it('keeps only allow-listed attributes and HMACs identifier attributes', () => {
    const cfg = redactionSection.parse({ hmacKey: 'k'.repeat(40) });
    const r = new PolicyRedactor(cfg).redact(
      triplet('q', ['s'], 'r', { 'http.route': '/ask', 'user.id': 'u-42', 'user.email': 'jane@example.com', 'rag.feedback': 'bad answer, mail me at jane@example.com' }),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(Object.keys(r.triplet.attributes!).sort()).toEqual(['http.route', 'rag.feedback', 'user.id']);
    expect(r.triplet.attributes!['user.id']).toMatch(/^k1_[0-9a-f]{12}$/);
    expect(r.triplet.attributes!['rag.feedback']).toBe('bad answer, mail me at <EMAIL_1>');
  });
});

/** Canary PII generators: each yields a raw value that must never survive redaction. */
const digit = fc.integer({ min: 0, max: 9 });
const email = fc.tuple(fc.stringMatching(/^[a-z][a-z0-9._]{0,15}[a-z0-9]$/), fc.stringMatching(/^[a-z]{2,12}$/), fc.constantFrom('com', 'org', 'io', 'co.uk'))
  .map(([l, d, t]) => `${l}@${d}.${t}`);
const card = fc.tuple(fc.constantFrom('4', '51', '37', '6011'), fc.array(digit, { minLength: 14, maxLength: 14 }), fc.constantFrom(' ', '-', ''))
  .map(([prefix, rest, sep]) => {
    const body = (prefix + rest.join('')).slice(0, 15);
    // Append the Luhn check digit.
    let sum = 0;
    for (let i = 0; i < body.length; i++) {
      let d = Number(body[body.length - 1 - i]);
      if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
      sum += d;
    }
    const full = body + String((10 - (sum % 10)) % 10);
    return full.replace(/(\d{4})(?=\d)/g, `$1${sep}`);
  });
const ipv4 = fc.tuple(fc.integer({ min: 1, max: 223 }), fc.nat(255), fc.nat(255), fc.integer({ min: 1, max: 254 })).map((p) => p.join('.'));
const phone = fc.tuple(fc.integer({ min: 200, max: 999 }), fc.integer({ min: 200, max: 999 }), fc.integer({ min: 1000, max: 9999 })).map(([a, b, c]) => `+1 ${a} ${b} ${c}`);
const ssn = fc.tuple(fc.integer({ min: 100, max: 665 }), fc.integer({ min: 10, max: 99 }), fc.integer({ min: 1000, max: 9999 })).map(([a, b, c]) => `${a}-${b}-${c}`);
const pii = fc.oneof(email, card, ipv4, phone, ssn);
const filler = fc.array(fc.constantFrom('the', 'answer', 'is', 'in', 'section', 'see', 'policy', 'fee', '42', 'and', 'or', '(', ')', ',', '.', ':', '\n'), { maxLength: 8 }).map((w) => w.join(' '));

describe('property: no canary PII survives', () => {
  it('random PII embedded in random text never appears in the redacted triplet', () => {
    const redactor = new PolicyRedactor();
    fc.assert(
      fc.property(fc.array(fc.tuple(filler, pii, filler), { minLength: 1, maxLength: 6 }), (parts) => {
        const text = parts.map(([a, p, b]) => `${a} ${p} ${b}`).join(' ');
        const r = redactor.redact(triplet(text, [text], text));
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        const out = JSON.stringify(r.triplet);
        for (const [, p] of parts) expect(out).not.toContain(p);
      }),
      { numRuns: 500 },
    );
  });
});

import { describe, expect, it } from 'vitest';
import { PolicyRedactor } from '../../../src/capture/redaction/policy-redactor.ts';
import { ibanChecksumValid, luhnValid } from '../../../src/capture/redaction/validators.ts';
import { redactionSection } from '../../../src/config/sections/redaction.ts';
import type { Triplet } from '../../../src/triplet.ts';

function triplet(text: string): Triplet {
  return {
    id: 't1', traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), service: 'svc', timestamp: new Date(0).toISOString(),
    query: text, sources: [{ content: 'unrelated source' }], response: 'ok', latency: { durationMs: 1 }, convention: 'openinference',
  };
}

const redactor = new PolicyRedactor();
function redact(text: string): { text: string; counts: Record<string, number> } {
  const r = redactor.redact(triplet(text));
  if (!r.ok) throw new Error('redaction failed');
  return { text: r.triplet.query, counts: r.counts };
}

describe('built-in recognizers: true positives', () => {
  const cases: Array<[string, string, string]> = [
    ['email', 'Contact jane.doe+rag@mail.example.co.uk today', 'Contact <EMAIL_1> today'],
    ['phone', 'Call +44 20 7946 0958 now', 'Call <PHONE_1> now'],
    ['phone', 'US office: (415) 555-2671.', 'US office: <PHONE_1>.'],
    ['phone', 'Ring 415-555-2671 or 020 7946 0958', 'Ring <PHONE_1> or <PHONE_2>'],
    ['payment_card', 'card 4111 1111 1111 1111 exp 12/29', 'card <PAYMENT_CARD_1> exp 12/29'],
    ['payment_card', 'amex 378282246310005.', 'amex <PAYMENT_CARD_1>.'],
    ['payment_card', 'mc 5555-5555-5555-4444', 'mc <PAYMENT_CARD_1>'],
    ['iban', 'IBAN GB82 WEST 1234 5698 7654 32 please', 'IBAN <IBAN_1> please'],
    ['iban', 'pay to DE89370400440532013000 today', 'pay to <IBAN_1> today'],
    ['us_ssn', 'SSN 123-45-6789 on file', 'SSN <US_SSN_1> on file'],
    ['us_ssn', 'ssn: 123456789', 'ssn: <US_SSN_1>'],
    ['ip_address', 'from 203.0.113.42, then 2001:db8::8a2e:370:7334.', 'from <IP_ADDRESS_2>, then <IP_ADDRESS_1>.'],
    ['secret', 'key sk-proj-abcdefghijklmnopqrstuvwxyz0123', 'key <SECRET_1>'],
    ['secret', 'aws AKIAIOSFODNN7EXAMPLE here', 'aws <SECRET_1> here'],
    ['secret', 'Authorization: Bearer abcdef0123456789abcdef.xyz', 'Authorization: Bearer <SECRET_1>'],
    ['secret', 'password="hunter2hunter2"', 'password="<SECRET_1>"'],
    ['secret', 'GET /x?token=0123456789abcdef&y=1', 'GET /x?token=<SECRET_1>&y=1'],
    ['secret', 'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.c2lnbmF0dXJlX3Rlc3Q end', 'jwt <SECRET_1> end'],
  ];
  it.each(cases)('%s: %s', (entity, input, expected) => {
    const out = redact(input);
    expect(out.text).toBe(expected);
    expect(out.counts[entity]).toBeGreaterThanOrEqual(1);
  });

  it('redacts a PEM private key block whole', () => {
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7b0\nabc+/=\n-----END RSA PRIVATE KEY-----';
    expect(redact(`key:\n${pem}\nthanks`).text).toBe('key:\n<SECRET_1>\nthanks');
  });
});

describe('built-in recognizers: true negatives (validators keep false positives out)', () => {
  it.each([
    ['card failing Luhn', 'order 4111 1111 1111 1112 shipped'],
    ['IBAN with a bad checksum', 'ref GB82 WEST 1234 5698 7654 33 noted'],
    ['IBAN-like with an unknown country', 'code QQ12 WEST 1234 5698 7654 32'],
    ['SSN with area 000', 'id 000-12-3456'],
    ['year and small numbers', 'It was completed in 1896 and cost 12,000 rupees; 3.5 stars.'],
    ['ISO date', 'on 2024-01-15 at 10:30:45'],
    ['MAC address', 'nic 00:1A:2B:3C:4D:5E'],
    ['version string with 3 parts', 'upgrade to 1.2.3 today'],
    ['C++ scope', 'use std::vector<int>'],
    ['plain prose', 'The Chimnabai Clock Tower was named after Chimnabai I.'],
  ])('%s', (_name, input) => {
    const out = redact(input);
    expect(out.text).toBe(input);
    expect(out.counts).toEqual({});
  });
});

describe('validators', () => {
  it('Luhn', () => {
    expect(luhnValid('4111111111111111')).toBe(true);
    expect(luhnValid('4111111111111112')).toBe(false);
  });
  it('ISO 7064 mod 97', () => {
    expect(ibanChecksumValid('GB82WEST12345698765432')).toBe(true);
    expect(ibanChecksumValid('GB82WEST12345698765433')).toBe(false);
  });
});

describe('configuration', () => {
  it('each recognizer can be switched off', () => {
    const off = new PolicyRedactor(redactionSection.parse({ recognizers: { email: { enabled: false } } }));
    const r = off.redact(triplet('mail a@b.com card 4111111111111111'));
    expect(r.ok && r.triplet.query).toBe('mail a@b.com card <PAYMENT_CARD_1>');
  });

  it('redaction off records policy "off" and leaves text alone', () => {
    const off = new PolicyRedactor(redactionSection.parse({ enabled: false }));
    const r = off.redact(triplet('mail a@b.com'));
    expect(r.ok && r.triplet.query).toBe('mail a@b.com');
    expect(r.ok && r.triplet.redactionPolicy).toBe('off');
  });

  it('custom recognizers run first and may replace only their `value` group', () => {
    const custom = new PolicyRedactor(
      redactionSection.parse({ custom: [{ name: 'employee_id', pattern: String.raw`\bemp(?:loyee)?[ #:]{1,3}(?<value>E\d{6})\b`, flags: 'i' }] }),
    );
    const r = custom.redact(triplet('Employee #E123456 and emp: E123456 asked'));
    expect(r.ok && r.triplet.query).toBe('Employee #<EMPLOYEE_ID_1> and emp: <EMPLOYEE_ID_1> asked');
    expect(r.ok && r.counts).toEqual({ employee_id: 2 });
  });

  it('refuses custom patterns that do not compile or backtrack catastrophically', () => {
    for (const pattern of ['(a+)+$', String.raw`(\w*x?)*y`, '([a-z]']) {
      const parsed = redactionSection.safeParse({ custom: [{ name: 'bad', pattern }] });
      expect(parsed.success, pattern).toBe(false);
    }
    expect(redactionSection.safeParse({ custom: [{ name: 'ok', pattern: String.raw`\bACME-\d{4,8}\b` }] }).success).toBe(true);
  });

  it('records the policy version with a hash of the effective policy', () => {
    const a = new PolicyRedactor(redactionSection.parse({ policyVersion: '7' }));
    const b = new PolicyRedactor(redactionSection.parse({ policyVersion: '7', recognizers: { phone: { enabled: false } } }));
    expect(a.policyVersion).toMatch(/^7\+[0-9a-f]{8}$/);
    expect(b.policyVersion).not.toBe(a.policyVersion);
    const r = a.redact(triplet('x'));
    expect(r.ok && r.triplet.redactionPolicy).toBe(a.policyVersion);
  });
});

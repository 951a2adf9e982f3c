import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BUILTIN_RECOGNIZERS, hasNumberRun, longestNumberRun } from '../../../src/capture/redaction/recognizers.ts';
import type { Recognizer } from '../../../src/capture/redaction/types.ts';

/** True when one of the recognizer's patterns finds a candidate its validator accepts. */
function finds(r: Recognizer, text: string): boolean {
  for (const pattern of r.patterns) {
    pattern.lastIndex = 0;
    for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
      const span = m.indices?.groups?.value ?? m.indices?.[0];
      if (span && m[0].length > 0 && (!r.validate || r.validate(text.slice(span[0], span[1])) > 0)) return true;
      pattern.lastIndex = m.index + 1;
    }
  }
  return false;
}

/** Values every recognizer finds, to splice into generated text. */
const POSITIVES = [
  'jane.doe@mail.example.com', '+44 20 7946 0958', '(415) 555-2671', '020 7946 0958', '4111 1111 1111 1111', '378282246310005',
  'GB82 WEST 1234 5698 7654 32', 'DE89370400440532013000', '123-45-6789', 'ssn: 123456789', '203.0.113.42', '2001:db8::8a2e:370:7334', '2001:0db8:85a3:0042:1000:8a2e:0370:7334', '::1',
  'fe80::1', 'sk-proj-abcdefghijklmnopqrstuvwxyz0123', 'AKIAIOSFODNN7EXAMPLE', 'Bearer abcdef0123456789abcdef', 'password="hunter2hunter2"',
];
/** Characters the digit and address patterns are built from, plus the ones that break their runs. */
const ALPHABET = [...'0123456789 ().+-:.abcdefABCDEFxyzXYZ@_/,;\n'];

describe('recognizer pre-checks', () => {
  it('never skip a text in which a pattern finds a value (generated texts around real values)', () => {
    const piece = fc.oneof(fc.string({ unit: fc.constantFrom(...ALPHABET), maxLength: 40 }), fc.constantFrom(...POSITIVES));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 6 }), (pieces) => {
        const text = pieces.join('');
        for (const r of BUILTIN_RECOGNIZERS) {
          if (r.mayContain && finds(r, text)) expect(r.mayContain(text), `${r.name} skipped ${JSON.stringify(text)}`).toBe(true);
        }
      }),
      { numRuns: 3_000, seed: 20261122 },
    );
  });

  it('let ordinary numbered prose skip the digit and address patterns', () => {
    const prose = 'Document 0 about topic 17: the widget was made in 2021 by ACME, cost 12,000 rupees and rates 3.5 stars.';
    const skipped = BUILTIN_RECOGNIZERS.filter((r) => r.mayContain && !r.mayContain(prose)).map((r) => r.name);
    expect(skipped.sort()).toEqual(['email', 'iban', 'ip_address', 'payment_card', 'phone', 'secret', 'us_ssn']);
  });

  it('measure the longest run of digits a phone, card or SSN could be read from', () => {
    expect(longestNumberRun('call +1 (415) 555-2671 now')).toBe(11);
    expect(longestNumberRun('in 2021, then 2022: 17 items')).toBe(4);
    expect(hasNumberRun('call +1 (415) 555-2671 now', 9)).toBe(true);
    expect(hasNumberRun('call +1 (415) 555-2671 now', 13)).toBe(false);
    expect(hasNumberRun('1 2 3 4 5 6 7 8 9', 9)).toBe(true);
    expect(hasNumberRun('1 2 3 4 5 6 7 8 x9', 9)).toBe(false);
  });
});

/**
 * Redaction runs on the capture path's timer, so it must stay linear-time on hostile input
 * (no catastrophic regex backtracking). Each case fills every text field of a triplet.
 */
import { describe, expect, it } from 'vitest';
import { PolicyRedactor } from '../../../src/capture/redaction/policy-redactor.ts';
import type { Triplet } from '../../../src/triplet.ts';

const HOSTILE: Record<string, (n: number) => string> = {
  letters: (n) => 'a'.repeat(n),
  digits: (n) => '1'.repeat(n),
  'digit-space': (n) => '1 '.repeat(n / 2),
  'at-runs': (n) => 'a@'.repeat(n / 2),
  'long-local-part': (n) => `${'a'.repeat(n - 4)}@b.c`,
  'endless-domain': (n) => `x@${'a.'.repeat(n / 2 - 1)}`,
  colons: (n) => ':'.repeat(n),
  'hex-colons': (n) => 'a:'.repeat(n / 2),
  'plus-digits': (n) => '+1 '.repeat(n / 3),
  'iban-prefixes': (n) => 'GB82 '.repeat(n / 5),
  'pem-begin-lines': (n) => `${'-----BEGIN PRIVATE KEY-----'.repeat(Math.floor(n / 27) - 1)}-----END PRIVATE KEY-----`,
  'jwt-prefixes': (n) => `${'eyJ'.repeat(20)}.`.repeat(n / 61),
  'key-assignments': (n) => 'password='.repeat(n / 9),
  'bearer-words': (n) => 'bearer '.repeat(n / 7),
  'dotted-digits': (n) => '1.'.repeat(n / 2),
  'dashed-digits': (n) => '1-'.repeat(n / 2),
  'pii-dense': (n) => 'a@b.co 4111111111111111 203.0.113.9 +44 20 7946 0958 '.repeat(n / 54),
};

const redactor = new PolicyRedactor();

function fill(text: string): Triplet {
  return {
    id: 'x', traceId: 'x', spanId: 'x', service: 's', timestamp: '', query: text,
    sources: [{ content: text }, { content: text }, { content: text }], response: text, latency: { durationMs: 1 }, convention: 'custom',
  };
}

/** Fastest of three runs, milliseconds (the minimum is the least noisy on a shared machine). */
function timeRedact(text: string): number {
  let best = Infinity;
  for (let i = 0; i < 3; i++) {
    const t0 = performance.now();
    const r = redactor.redact(fill(text));
    best = Math.min(best, performance.now() - t0);
    expect(r.ok).toBe(true);
  }
  return best;
}

describe('redaction on hostile input', () => {
  it.each(Object.keys(HOSTILE))('%s: five 32,000-character fields in well under a capture tick, scaling linearly', (name) => {
    const gen = HOSTILE[name]!;
    const small = timeRedact(gen(32_000));
    // 32k chars × 5 fields is the most one triplet can carry (capture.maxTextChars default).
    expect(small).toBeLessThan(250);
    const large = timeRedact(gen(128_000));
    // 4× the input: linear ≈ 4×, quadratic ≈ 16×. Allow noise, plus an absolute floor for tiny timings.
    expect(large).toBeLessThan(Math.max(10 * small, 100));
  });
});

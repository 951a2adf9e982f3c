/**
 * Built-in recognizers. Each pattern is linear-time on hostile input (see `Recognizer`): bounded
 * quantifiers, a left-boundary lookbehind so long runs are entered once, and a validator
 * (Luhn, ISO 7064, registered lengths, `net.isIPv6`) wherever one exists, to keep false positives low.
 * @module
 */
import type { Recognizer } from './types.ts';
import { digitsOf, ibanLength, ipv6Valid, luhnValid } from './validators.ts';

const lower = (s: string) => s.toLowerCase();

/** Nine characters of a run of `[0-9 ().+-]`, starting with a digit: every run holding 9+ digits has them. */
const NUMBER_RUN_HINT = /\d[\d ().+-]{8}/;

/** Most digits in one run of `[0-9 ().+-]` in `text`. */
export function longestNumberRun(text: string): number {
  let run = 0;
  let longest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (++run > longest) longest = run;
    } else if (c > 57 || !(c === 32 || c === 40 || c === 41 || c === 43 || c === 45 || c === 46)) run = 0;
  }
  return longest;
}

// The phone, card and SSN pre-checks ask about the same text in turn: remember the last answer.
let lastText: string | undefined;
let lastRun = 0;

/**
 * True when some run of `[0-9 ().+-]` in `text` holds at least `n` (≥ 9) digits: the phone, card
 * and SSN pre-check. Every candidate of their patterns lies inside one such run and holds 9+
 * digits (13+ for a card), so most RAG text — numbers, but no run of 9 digits — skips their
 * patterns after one regex scan; only a text with a long enough run is counted exactly.
 */
export function hasNumberRun(text: string, n: number): boolean {
  if (text !== lastText) {
    lastRun = NUMBER_RUN_HINT.test(text) ? longestNumberRun(text) : 0;
    lastText = text;
  }
  return lastRun >= n;
}

/** E-mail addresses (RFC 5321 length limits: 64-character local part, 63-character labels). */
export const emailRecognizer: Recognizer = {
  name: 'email',
  entity: 'EMAIL',
  patterns: [/(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}(?![A-Za-z0-9-])/dg],
  mayContain: (t) => t.includes('@'),
  normalize: lower,
};

/** Phone numbers: international (`+` or `00`, E.164), NANP `(555) 123-4567`, and grouped national numbers starting with 0; 9–15 digits in all. */
export const phoneRecognizer: Recognizer = {
  name: 'phone',
  entity: 'PHONE',
  patterns: [
    /(?<![\w+])(?:\+|00)[1-9][0-9 ().-]{6,20}[0-9](?!\w)/dg,
    /(?<![\w.+-])(?:\(\d{3}\) ?|\d{3}[-. ])\d{3}[-. ]\d{4}(?!\w|[-.]\d)/dg,
    /(?<![\w.+-])0[1-9]\d{0,3}(?:[ -]\d{2,4}){2,4}(?!\w|[-.]\d)/dg,
  ],
  mayContain: (t) => hasNumberRun(t, 9),
  validate: (c) => {
    const n = digitsOf(c).length;
    return n >= 9 && n <= 15 ? c.length : 0;
  },
  normalize: digitsOf,
};

/**
 * Length of the longest Luhn-valid card number (13–19 digits) at the start of `candidate` that ends
 * at a group boundary (a separator or the candidate's end), or 0.
 */
function cardLength(candidate: string): number {
  const ends: number[] = [];
  let digits = '';
  for (let i = 0; i < candidate.length; i++) {
    if (candidate[i]! < '0' || candidate[i]! > '9') continue;
    digits += candidate[i];
    const next = candidate[i + 1];
    if (next === undefined || next === ' ' || next === '-') ends.push(digits.length, i + 1);
  }
  for (let j = ends.length - 2; j >= 0; j -= 2) {
    const n = ends[j]!;
    if (n < 13 || n > 19) continue;
    const d = digits.slice(0, n);
    if (!/^(\d)\1+$/.test(d) && luhnValid(d)) return ends[j + 1]!;
  }
  return 0;
}

/** Payment card numbers: 13–19 digits (spaces or dashes allowed), major-network prefix, Luhn-valid. */
export const paymentCardRecognizer: Recognizer = {
  name: 'payment_card',
  entity: 'PAYMENT_CARD',
  patterns: [/(?<![\d+-])[2-6](?:[ -]?\d){12,18}(?!\d)/dg],
  mayContain: (t) => hasNumberRun(t, 13),
  validate: cardLength,
  normalize: digitsOf,
};

const IBAN_HINT = /[A-Z]{2}\d{2}/;

/** IBANs (compact or in groups of four), checked against the registered country length and ISO 7064 mod 97. */
export const ibanRecognizer: Recognizer = {
  name: 'iban',
  entity: 'IBAN',
  patterns: [/(?<![A-Za-z0-9])[A-Z]{2}\d{2}(?: ?[A-Za-z0-9]){11,30}/dg],
  mayContain: (t) => IBAN_HINT.test(t),
  validate: ibanLength,
  normalize: (s) => s.replace(/ /g, '').toUpperCase(),
};

/** US social security numbers: `123-45-6789` / `123 45 6789` (SSA-invalid areas excluded), or 9 digits after "SSN". */
export const usSsnRecognizer: Recognizer = {
  name: 'us_ssn',
  entity: 'US_SSN',
  patterns: [
    /(?<![\d-])(?!000|666|9\d\d)\d{3}([- ])(?!00)\d{2}\1(?!0000)\d{4}(?![\d-])/dg,
    /\b(?:ssn|social security(?: number)?)\W{0,3}(?<value>\d{9})(?!\d)/dgi,
  ],
  mayContain: (t) => hasNumberRun(t, 9),
  normalize: digitsOf,
};

const IPV4_HINT = /\d\.\d{1,3}\.\d{1,3}\.\d/;

const isHexDigit = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

/**
 * True when two colons stand at most 4 hex digits apart (`::`, `db8:`…`:`): every IPv6 candidate
 * has them. Visits only the colons (native `indexOf`): prose has few.
 */
export function hasIpv6Hint(text: string): boolean {
  for (let i = text.indexOf(':'); i >= 0; i = text.indexOf(':', i + 1)) {
    for (let j = i + 1; j <= i + 5 && j < text.length; j++) {
      const c = text.charCodeAt(j);
      if (c === 58) return true;
      if (!isHexDigit(c)) break;
    }
  }
  return false;
}

/** IPv4 and IPv6 addresses (IPv6 candidates are confirmed with `net.isIPv6`). */
export const ipAddressRecognizer: Recognizer = {
  name: 'ip_address',
  entity: 'IP_ADDRESS',
  patterns: [
    // The lookahead (a colon within the first group) keeps hex-looking words and plain numbers
    // ("added", "1896") from reaching the validator.
    /(?<![0-9A-Za-z:.])(?=[0-9A-Fa-f]{0,4}:)[0-9A-Fa-f:]{2,39}(?![0-9A-Za-z:]|\.\d)/dg,
    /(?<![\d.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?!\d|\.\d)/dg,
  ],
  // An IPv6 candidate has two colons at most 4 hex digits apart; an IPv4 one, three dotted numbers.
  mayContain: (t) => hasIpv6Hint(t) || (t.includes('.') && IPV4_HINT.test(t)),
  validate: (c) => (c.includes('.') || ipv6Valid(c) ? c.length : 0),
  normalize: lower,
};

const KEY_NAMES = String.raw`api[_-]?key|apikey|secret(?:[_-]?key)?|client[_-]?secret|password|passwd|pwd|(?:access|auth|refresh|session|id)[_-]?token|private[_-]?key`;

const SECRET_ANCHORS = /sk-|_live_|_test_|gh[pousr]_|github_pat_|xox[abprs]-|AIza|AKIA|ASIA|eyJ|-----BEGIN|bearer|api[_-]?key|apikey|secret|passw|pwd|token|private[_-]?key|[?&](?:key|sig)/i;
// The anchors without punctuation, and the punctuation the others all contain: a simple scan and
// four native searches are cheaper than the full alternation, which then runs only on text with one
// of - _ ? &.
const SECRET_WORD_ANCHORS = /a(?:iza|kia|sia|pikey)|secret|eyj|bearer|p(?:assw|wd|rivatekey)|token/i;

/** True when `text` contains one of {@link SECRET_ANCHORS} (same answer, fewer regex steps on ordinary text). */
export function hasSecretAnchor(text: string): boolean {
  return SECRET_WORD_ANCHORS.test(text) || ((text.includes('-') || text.includes('_') || text.includes('?') || text.includes('&')) && SECRET_ANCHORS.test(text));
}

/** Secrets: provider API keys with a known prefix, JWTs, PEM private keys, bearer tokens and `password=…`-style assignments. */
export const secretRecognizer: Recognizer = {
  name: 'secret',
  entity: 'SECRET',
  patterns: [
    // OpenAI/Anthropic-style, Stripe, GitHub, Slack, Google, AWS access key ids.
    /(?<![A-Za-z0-9_-])(?:sk-[A-Za-z0-9_-]{20,256}|(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,256}|gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255}|xox[abprs]-[A-Za-z0-9-]{10,256}|AIza[0-9A-Za-z_-]{35}|(?:AKIA|ASIA)[0-9A-Z]{16})(?![A-Za-z0-9_-])/dg,
    /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,4096}\.eyJ[A-Za-z0-9_-]{2,8192}\.[A-Za-z0-9_-]{0,4096}/dg,
    // The body class excludes '-', so a failed attempt stops at the next dash: linear even with many BEGIN lines.
    /-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY-----[A-Za-z0-9+/=\s:,.]{0,16384}-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----/dg,
    /\bbearer\s{1,3}(?<value>[A-Za-z0-9._~+/-]{16,4096}=*)/dgi,
    new RegExp(String.raw`\b(?:${KEY_NAMES})["']?\s{0,3}[:=]\s{0,3}["']?(?<value>[^\s"',;]{6,4096})`, 'dgi'),
    /[?&](?:token|key|sig|signature)=(?<value>[^\s&#"']{8,4096})/dgi,
  ],
  // Literal anchors every pattern above needs (a superset: "Asia" passes too).
  mayContain: hasSecretAnchor,
};

/** Every built-in recognizer, in the order they run (specific before generic: a card is never read as a phone). */
export const BUILTIN_RECOGNIZERS: readonly Recognizer[] = [
  secretRecognizer,
  emailRecognizer,
  ibanRecognizer,
  paymentCardRecognizer,
  usSsnRecognizer,
  ipAddressRecognizer,
  phoneRecognizer,
];

/** Names of the built-in recognizers (config keys under `redaction.recognizers`). */
export const BUILTIN_RECOGNIZER_NAMES = ['email', 'phone', 'payment_card', 'iban', 'us_ssn', 'ip_address', 'secret'] as const;
export type BuiltinRecognizerName = (typeof BUILTIN_RECOGNIZER_NAMES)[number];

import { z } from 'zod';
import { unsafePatternReason } from '../safe-pattern.ts';

const mode = z.enum(['placeholder', 'hmac']);

const recognizer = z
  .object({
    /** Run this recognizer. Default true. */
    enabled: z.boolean().default(true),
    /** `placeholder` (`<EMAIL_1>`, numbered per triplet) or `hmac` (`<EMAIL_k1_…>`, joinable across triplets). Default `placeholder`. */
    mode: mode.default('placeholder'),
  })
  .strict();

const customRecognizer = z
  .object({
    /** Lower-case name: the `entity` metric label; the placeholder type is its upper-case form. */
    name: z.string().regex(/^[a-z][a-z0-9_]{0,31}$/),
    /** JavaScript regular expression. A named group `value` limits the replacement to that group. */
    pattern: z.string().min(1).max(2_000),
    /** Extra regex flags among `i`, `m`, `s`, `u`. Default none. */
    flags: z.string().regex(/^[imsu]*$/).default(''),
    /** Default `placeholder`. */
    mode: mode.default('placeholder'),
  })
  .strict()
  .superRefine((c, ctx) => {
    const reason = unsafePatternReason(c.pattern, c.flags);
    if (reason) ctx.addIssue({ code: 'custom', path: ['pattern'], message: `pattern refused: ${reason}` });
  });

/** PII redaction at capture, before a triplet leaves the process (DESIGN §6, §11 promise 8). */
export const redactionSection = z
  .object({
    /** Redact at all. Default true; turning it off is recorded on every triplet as policy `off`. */
    enabled: z.boolean().default(true),
    /** Operator's policy version, recorded on every triplet with a hash of the effective policy. Default `1`. */
    policyVersion: z.string().regex(/^[A-Za-z0-9._-]{1,32}$/).default('1'),
    /** Built-in recognizers, each on by default and switchable off. */
    recognizers: z
      .object({
        email: recognizer.prefault({}),
        phone: recognizer.prefault({}),
        payment_card: recognizer.prefault({}),
        iban: recognizer.prefault({}),
        us_ssn: recognizer.prefault({}),
        ip_address: recognizer.prefault({}),
        secret: recognizer.prefault({}),
      })
      .strict()
      .prefault({}),
    /** Operator-supplied recognizers (run before the built-ins). Default none; at most 32. */
    custom: z.array(customRecognizer).max(32).default([]),
    /**
     * Span attributes a triplet may carry (fail-closed allow-list; exact keys). Values are redacted
     * like text. Default: route, feedback and sampling-rule attributes only.
     */
    allowAttributes: z.array(z.string().min(1)).default(['http.route', 'rag.route', 'rag.feedback', 'user.feedback', 'gen_ai.request.model']),
    /** Identifier attributes kept joinable: replaced by a keyed HMAC token (implicitly allowed). Default user, end-user, session and tenant ids. */
    hmacAttributes: z.array(z.string().min(1)).default(['user.id', 'enduser.id', 'session.id', 'tenant.id']),
    /** HMAC key (≥ 32 characters; env `RAGWATCH_REDACTION_HMAC_KEY`). Default none: a random per-process key, so tokens join only within one process. */
    hmacKey: z.string().min(32).optional(),
    /** Key id written into every HMAC token, to make rotations visible. Default `k1`. */
    hmacKeyId: z.string().regex(/^[A-Za-z0-9]{1,8}$/).default('k1'),
  })
  .strict();

/** Resolved redaction policy. */
export type RedactionConfig = z.output<typeof redactionSection>;

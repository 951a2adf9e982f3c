import { z } from 'zod';

/** Longest string value a sampling rule or stratum compares (capture keeps no longer value on a triplet). */
export const MAX_SAMPLING_ATTRIBUTE_VALUE_CHARS = 256;

const attributeValue = z.union([z.string().max(MAX_SAMPLING_ATTRIBUTE_VALUE_CHARS), z.number(), z.boolean()]);

/** What a sampling rule matches; every given condition must hold (AND). */
const ruleMatch = z
  .object({
    /** Exact route (triplet `route`). */
    route: z.string().optional(),
    /** Exact model name. */
    model: z.string().optional(),
    /** Exact service name. */
    service: z.string().optional(),
    /**
     * Attributes that must equal these values, looked up on the generation span, then its ancestors
     * (nearest first), the trace's root span and the resource (docs/sampling.md). An identifier listed in
     * `redaction.hmacAttributes` is compared by its pseudonym: write the raw value here.
     */
    attributes: z.record(z.string().min(1), attributeValue).optional(),
    /** Matches when the response is empty (or only whitespace). */
    emptyResponse: z.boolean().optional(),
    /** Matches when the generation took longer than this, milliseconds. */
    latencyAboveMs: z.number().nonnegative().optional(),
    /** Matches when the answer's spans carry negative feedback as the `feedback` section reads it (its thumbs and rating attributes and values). */
    negativeFeedback: z.boolean().optional(),
  })
  .strict();

/** One sampling rule; rules are tried in order and the first match wins. */
const rule = z
  .object({
    /** Name reported in `sampling.rule` and metrics; default `rule<N>`. */
    name: z.string().min(1).max(64).optional(),
    /** `in` samples matching triplets (at `rate`), `out` never samples them. */
    action: z.enum(['in', 'out']),
    /** Share of matching traces sampled by an `in` rule (deterministic on the trace id). Default 1. */
    rate: z.number().gt(0).max(1).default(1),
    match: ruleMatch,
  })
  .strict();

/** Stratified sampling: a rate or a per-minute quota per value of one bounded label. */
const strata = z
  .object({
    /** Label that defines strata: `none` (one stratum "all"), `route`, `model`, `service`, `attribute`, or `topic` (the question's topic, each topic a stratum: docs/weaknesses.md). */
    by: z.enum(['none', 'route', 'model', 'service', 'attribute', 'topic']).default('none'),
    /** Attribute name when `by: attribute` (looked up like a rule's `attributes`). */
    attribute: z.string().min(1).optional(),
    /** Rate per stratum value (0 < rate ≤ 1); values not listed fall in `other` at `sampling.rate`. */
    rates: z.record(z.string(), z.number().gt(0).max(1)).default({}),
    /** Judged triplets per minute per stratum value (adaptive rate, weight = 1/estimated rate). */
    quotasPerMinute: z.record(z.string(), z.number().int().positive()).default({}),
    /** With `by: topic`: judged triplets per minute of every topic not listed above, so a niche topic is judged as often as a dominant one. Default none (unlisted topics at `sampling.rate`). */
    eachQuotaPerMinute: z.number().int().positive().optional(),
  })
  .strict()
  .refine((s) => s.by !== 'attribute' || s.attribute !== undefined, { message: '`attribute` is required when `by: attribute`' })
  .refine((s) => s.eachQuotaPerMinute === undefined || s.by === 'topic', { message: '`eachQuotaPerMinute` needs `by: topic` (other labels are unbounded)' })
  .refine((s) => Object.keys(s.rates).length + Object.keys(s.quotasPerMinute).length <= 50, { message: 'at most 50 strata (bounded label)' });

/** Scoring budget, enforced at the scorer (shed triplets are counted as dropped{stage="scorer",reason="budget_*"}). */
const budget = z
  .object({
    /** Most triplets judged per minute per scorer process; unset = unlimited. */
    maxTripletsPerMinute: z.number().int().positive().optional(),
    /** Most judge tokens (input + output) per rolling hour per scorer process; unset = unlimited. */
    maxTokensPerHour: z.number().int().positive().optional(),
  })
  .strict();

/** Sampling: which captured triplets are sent to the judges. */
export const samplingSection = z
  .object({
    /**
     * Share of traces sampled, deterministic on the conversation id when the triplet has one (a chat is
     * judged whole or not at all), else on the trace id (replicas and restarts agree). Default 1.
     */
    rate: z.number().min(0).max(1).default(1),
    /** Turns judged per conversation at most (long chats); later turns are not sampled, counted (`max_turns_per_conversation`). 0: no bound. Default 50. */
    maxTurnsPerConversation: z.number().int().min(0).default(50),
    /** Ordered rules; the first match decides. Default none. */
    rules: z.array(rule).max(100).default([]),
    /** Stratified rates/quotas. Default: one stratum `all` at `rate`. */
    strata: strata.prefault({}),
    budget: budget.prefault({}),
  })
  .strict();

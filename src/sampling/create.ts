/**
 * Builds the configured sampler: rules first, then stratified rates/quotas (or one rate).
 * @module
 */
import { RulesSampler } from './rules.ts';
import { StratifiedSampler } from './stratified.ts';
import type { Sampler } from './types.ts';
import { boundTurnsPerConversation } from './conversation-bound.ts';
import type { FeedbackSignalOptions } from './feedback-signal.ts';
import type { RagwatchConfig } from '../config/schema.ts';

/** Every probe triplet is judged (weight 1, its own stratum): probes are few, and each one is evidence. */
const PROBE_DECISION = { sampled: true, sampling: { weight: 1, stratum: 'probe', rule: 'probe' } } as const;

/** What the configured sampler may need from its process. */
export interface SamplerContext {
  /** `strata.by: topic`: the question's topic id by the shared topic model's words (cheap), undefined before a model is known. */
  topicOf?: (query: string) => string | undefined;
  /** What `negativeFeedback` rules read as negative: `feedbackSignalOf(config.feedback)`. Default: the `feedback` section's defaults. */
  feedback?: FeedbackSignalOptions;
  /** The value an attribute holding a configured value has on a triplet: `Capture.pseudonymOf` (pseudonymised identifiers). Default: the value. */
  carriedValue?: (key: string, value: string | number | boolean) => string | number | boolean;
}

/** The sampler described by the `sampling` config section; probe triplets always pass. */
export function createSampler(config: RagwatchConfig['sampling'], context: SamplerContext = {}): Sampler {
  const inner = boundTurnsPerConversation(configuredSampler(config, context), config.maxTurnsPerConversation);
  return {
    shouldSample: (triplet, nowMs) => (triplet.origin === 'probe' ? PROBE_DECISION : inner.shouldSample(triplet, nowMs)),
    toString: () => `Probes+${inner.toString()}`,
  };
}

function configuredSampler(config: RagwatchConfig['sampling'], context: SamplerContext): Sampler {
  const strata = new StratifiedSampler({
    by: config.strata.by,
    ...(config.strata.attribute !== undefined ? { attribute: config.strata.attribute } : {}),
    rates: config.strata.rates,
    quotasPerMinute: config.strata.quotasPerMinute,
    defaultRate: config.rate,
    ...(context.topicOf ? { topicOf: context.topicOf } : {}),
    ...(config.strata.eachQuotaPerMinute !== undefined ? { eachQuotaPerMinute: config.strata.eachQuotaPerMinute } : {}),
    ...(context.carriedValue ? { carriedValue: context.carriedValue } : {}),
  });
  if (config.rules.length === 0) return strata;
  return new RulesSampler({ rules: config.rules, fallback: strata, ...(context.feedback ? { feedback: context.feedback } : {}), ...(context.carriedValue ? { carriedValue: context.carriedValue } : {}) });
}

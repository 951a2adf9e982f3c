/**
 * Builds the configured sampler: rules first, then stratified rates/quotas (or one rate).
 * @module
 */
import { RulesSampler } from './rules.ts';
import { StratifiedSampler } from './stratified.ts';
import type { Sampler } from './types.ts';
import type { RagwatchConfig } from '../config/schema.ts';

/** The sampler described by the `sampling` config section. */
export function createSampler(config: RagwatchConfig['sampling']): Sampler {
  const strata = new StratifiedSampler({
    by: config.strata.by,
    ...(config.strata.attribute !== undefined ? { attribute: config.strata.attribute } : {}),
    rates: config.strata.rates,
    quotasPerMinute: config.strata.quotasPerMinute,
    defaultRate: config.rate,
  });
  if (config.rules.length === 0) return strata;
  return new RulesSampler({ rules: config.rules, fallback: strata, feedback: config.feedback });
}

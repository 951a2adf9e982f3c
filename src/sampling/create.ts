/**
 * Builds the configured sampler: rules first, then stratified rates/quotas (or one rate).
 * @module
 */
import { RulesSampler } from './rules.ts';
import { StratifiedSampler } from './stratified.ts';
import type { Sampler } from './types.ts';
import type { RagwatchConfig } from '../config/schema.ts';

/** Every probe triplet is judged (weight 1, its own stratum): probes are few, and each one is evidence. */
const PROBE_DECISION = { sampled: true, sampling: { weight: 1, stratum: 'probe', rule: 'probe' } } as const;

/** The sampler described by the `sampling` config section; probe triplets always pass. */
export function createSampler(config: RagwatchConfig['sampling']): Sampler {
  const inner = configuredSampler(config);
  return {
    shouldSample: (triplet, nowMs) => (triplet.origin === 'probe' ? PROBE_DECISION : inner.shouldSample(triplet, nowMs)),
    toString: () => `Probes+${inner.toString()}`,
  };
}

function configuredSampler(config: RagwatchConfig['sampling']): Sampler {
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

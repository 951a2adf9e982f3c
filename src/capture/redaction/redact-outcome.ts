/**
 * The capture-stage hook: redacts a generation outcome before any sink sees it, and counts.
 * @module
 */
import { PolicyRedactor } from './policy-redactor.ts';
import type { TripletRedactor } from './types.ts';
import { samplingAttributeKeys } from '../../config/sampling-attributes.ts';
import type { RedactionConfig } from '../../config/sections/redaction.ts';
import type { RagwatchConfig } from '../../config/schema.ts';
import type { Instruments } from '../../telemetry/instruments.ts';
import type { GenerationOutcome } from '../types.ts';

/** Builds the redactor for a `redaction` config section (default: every built-in recognizer on). */
export function createRedactor(config?: RedactionConfig, options: { textRedacted?: boolean } = {}): TripletRedactor {
  return new PolicyRedactor(config, options);
}

/**
 * The redaction section with every attribute the sampling configuration reads ({@link samplingAttributeKeys}:
 * rule matches, the stratifying attribute, the feedback attributes of `negativeFeedback` rules) added
 * to `allowAttributes`, so the allow-list never silently disables a sampling rule. Their values are
 * still redacted like text; an `hmacAttributes` identifier still carries its pseudonym.
 */
export function redactionForPipeline(config: RagwatchConfig): RedactionConfig {
  return { ...config.redaction, allowAttributes: [...new Set([...config.redaction.allowAttributes, ...samplingAttributeKeys(config)])] };
}

/**
 * Returns the outcome with its triplet redacted, or `undefined` when redaction failed (the
 * triplet is then dropped, counted as `ragwatch_dropped_total{stage="capture",reason="redaction_error"}`:
 * fail closed). Never throws.
 */
export function redactOutcome(outcome: GenerationOutcome, redactor: TripletRedactor, instruments: Instruments): GenerationOutcome | undefined {
  if (outcome.kind !== 'triplet') return outcome;
  const result = redactor.redact(outcome.triplet);
  if (!result.ok) {
    instruments.dropped.inc({ stage: 'capture', reason: result.reason });
    return undefined;
  }
  for (const [entity, n] of Object.entries(result.counts)) instruments.redactions.inc({ entity }, n);
  return { ...outcome, triplet: result.triplet };
}

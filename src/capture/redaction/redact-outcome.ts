/**
 * The capture-stage hook: redacts a generation outcome before any sink sees it, and counts.
 * @module
 */
import { PolicyRedactor } from './policy-redactor.ts';
import type { TripletRedactor } from './types.ts';
import type { RedactionConfig } from '../../config/sections/redaction.ts';
import type { RagwatchConfig } from '../../config/schema.ts';
import type { Instruments } from '../../telemetry/instruments.ts';
import type { GenerationOutcome } from '../types.ts';

/** Builds the redactor for a `redaction` config section (default: every built-in recognizer on). */
export function createRedactor(config?: RedactionConfig, options: { textRedacted?: boolean } = {}): TripletRedactor {
  return new PolicyRedactor(config, options);
}

/**
 * The redaction section with every span attribute the sampling configuration reads (rule matches,
 * the stratifying attribute, the feedback attribute) added to `allowAttributes`, so the allow-list
 * never silently disables a sampling rule. Their values are still redacted like text.
 */
export function redactionForPipeline(config: RagwatchConfig): RedactionConfig {
  const s = config.sampling;
  const used = [
    ...s.rules.flatMap((r) => Object.keys(r.match.attributes ?? {})),
    ...(s.strata.by === 'attribute' && s.strata.attribute ? [s.strata.attribute] : []),
    s.feedback.attribute,
  ];
  return { ...config.redaction, allowAttributes: [...new Set([...config.redaction.allowAttributes, ...used])] };
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

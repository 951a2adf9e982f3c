/**
 * The span attributes the sampling configuration reads, which capture copies onto every triplet
 * (`Triplet.attributes`) and the redaction allow-list lets through: the attributes of the rules'
 * matches, the stratifying attribute, and — when a rule tests `negativeFeedback` — the `feedback`
 * section's rating and thumbs attributes. Bounded in count (checked at load) and in value length.
 * @module
 */
import type { z } from 'zod';
import type { FeedbackConfig } from './sections/feedback.ts';
import type { samplingSection } from './sections/sampling.ts';

/** Most attributes the sampling configuration may read (capture copies each onto every triplet). */
export const MAX_SAMPLING_ATTRIBUTES = 64;

/** The attributes `sampling` reads, in a stable order without duplicates. */
export function samplingAttributeKeys(config: { sampling: z.output<typeof samplingSection>; feedback: FeedbackConfig }): string[] {
  const s = config.sampling;
  const keys = s.rules.flatMap((r) => Object.keys(r.match.attributes ?? {}));
  if (s.strata.by === 'attribute' && s.strata.attribute !== undefined) keys.push(s.strata.attribute);
  if (s.rules.some((r) => r.match.negativeFeedback !== undefined)) keys.push(...config.feedback.spans.ratingAttributes, ...config.feedback.spans.thumbsAttributes);
  return [...new Set(keys)];
}

/**
 * Reads a feedback value: a thumbs value against the configured positive and negative values (strings
 * case-insensitively), a rating as an integer 1–5, and the polarity of either. The reading itself is
 * `sampling/feedback-signal.ts`, shared with `negativeFeedback` sampling rules: one notion of feedback.
 * @module
 */
import type { ValueRules } from '../sampling/feedback-signal.ts';
import type { FeedbackItem, FeedbackPolarity } from './types.ts';

export { ratingOf, thumbsOf, valueRulesOf, type ValueRules } from '../sampling/feedback-signal.ts';

/** The polarity of a value of its kind. */
export function polarityOf(kind: FeedbackItem['kind'], value: number, rules: ValueRules): FeedbackPolarity {
  if (kind === 'thumbs') return value >= 1 ? 'positive' : 'negative';
  return value >= rules.goodRatingAtLeast ? 'positive' : value <= rules.badRatingAtMost ? 'negative' : 'neutral';
}

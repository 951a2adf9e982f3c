/**
 * The one reading of an end user's feedback value, shared by `negativeFeedback` sampling rules and
 * the feedback capability (docs/feedback.md): a thumbs value against the configured positive and
 * negative values (strings case-insensitively), a rating as an integer 1–5 against the rating bounds.
 * Both read the `feedback` config section, so a value is negative to a sampling rule exactly when it
 * is negative in `ragwatch_feedback_total`.
 * @module
 */
import { feedbackSection, type FeedbackConfig } from '../config/sections/feedback.ts';

type Raw = string | number | boolean;

/** The values and rating bounds of a `feedback` section. */
export interface ValueRules {
  positive: ReadonlySet<string>;
  negative: ReadonlySet<string>;
  goodRatingAtLeast: number;
  badRatingAtMost: number;
}

/** What reads as negative feedback: the `feedback` section's values and span attributes. Every field optional (defaults: the section's). */
export interface FeedbackSignalOptions {
  positiveValues?: readonly Raw[];
  negativeValues?: readonly Raw[];
  goodRatingAtLeast?: number;
  badRatingAtMost?: number;
  /** Attributes holding a thumbs value. */
  thumbsAttributes?: readonly string[];
  /** Attributes holding a 1–5 rating. */
  ratingAttributes?: readonly string[];
}

const key = (v: Raw) => (typeof v === 'string' ? v.trim().toLowerCase() : `${typeof v}:${String(v)}`);

/** The value rules of a configuration. */
export function valueRulesOf(config: Pick<FeedbackConfig, 'positiveValues' | 'negativeValues' | 'goodRatingAtLeast' | 'badRatingAtMost'>): ValueRules {
  return { positive: new Set(config.positiveValues.map(key)), negative: new Set(config.negativeValues.map(key)), goodRatingAtLeast: config.goodRatingAtLeast, badRatingAtMost: config.badRatingAtMost };
}

/** A thumbs value: 1 up, 0 down, undefined when it is neither. Numbers given as strings count as numbers too. */
export function thumbsOf(raw: unknown, rules: ValueRules): 0 | 1 | undefined {
  if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') return undefined;
  const candidates = [key(raw)];
  if (typeof raw === 'string' && raw.trim() !== '' && Number.isFinite(Number(raw))) candidates.push(key(Number(raw)));
  if (candidates.some((c) => rules.positive.has(c))) return 1;
  if (candidates.some((c) => rules.negative.has(c))) return 0;
  return undefined;
}

/** A rating 1–5 (an integer, or a string of one), undefined otherwise. */
export function ratingOf(raw: unknown): number | undefined {
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  return Number.isInteger(n) && n >= 1 && n <= 5 ? n : undefined;
}

/** The `feedback` section's options of the signal, the attribute names included. */
export function feedbackSignalOf(config: FeedbackConfig): FeedbackSignalOptions {
  return { ...config, thumbsAttributes: config.spans.thumbsAttributes, ratingAttributes: config.spans.ratingAttributes };
}

/**
 * True when attributes hold negative feedback, read as the feedback capability reads a span: the
 * first rating attribute holding a rating decides (at most `badRatingAtMost`), else the first thumbs
 * attribute holding a positive or negative value. Never throws.
 */
export function negativeFeedbackTest(options: FeedbackSignalOptions = {}): (attributes: Readonly<Record<string, unknown>>) => boolean {
  const d = feedbackSection.parse({});
  const rules = valueRulesOf({
    positiveValues: [...(options.positiveValues ?? d.positiveValues)],
    negativeValues: [...(options.negativeValues ?? d.negativeValues)],
    goodRatingAtLeast: options.goodRatingAtLeast ?? d.goodRatingAtLeast,
    badRatingAtMost: options.badRatingAtMost ?? d.badRatingAtMost,
  });
  const ratings = options.ratingAttributes ?? d.spans.ratingAttributes;
  const thumbs = options.thumbsAttributes ?? d.spans.thumbsAttributes;
  return (attributes) => {
    for (const k of ratings) {
      const r = ratingOf(attributes[k]);
      if (r !== undefined) return r <= rules.badRatingAtMost;
    }
    for (const k of thumbs) {
      const t = thumbsOf(attributes[k], rules);
      if (t !== undefined) return t === 0;
    }
    return false;
  };
}

/**
 * Reads a feedback value: a thumbs value against the configured positive and negative values (strings
 * case-insensitively), a rating as an integer 1–5, and the polarity of either.
 * @module
 */
import type { FeedbackConfig } from '../config/sections/feedback.ts';
import type { FeedbackItem, FeedbackPolarity } from './types.ts';

type Raw = string | number | boolean;

/** The values and rating bounds of a `feedback` section. */
export interface ValueRules {
  positive: ReadonlySet<string>;
  negative: ReadonlySet<string>;
  goodRatingAtLeast: number;
  badRatingAtMost: number;
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

/** The polarity of a value of its kind. */
export function polarityOf(kind: FeedbackItem['kind'], value: number, rules: ValueRules): FeedbackPolarity {
  if (kind === 'thumbs') return value >= 1 ? 'positive' : 'negative';
  return value >= rules.goodRatingAtLeast ? 'positive' : value <= rules.badRatingAtMost ? 'negative' : 'neutral';
}

import { z } from 'zod';

const attributeValue = z.union([z.string(), z.number(), z.boolean()]);
const names = z.array(z.string().min(1).max(256)).max(32);

/** Where feedback is read on the answer's trace (docs/feedback.md: the common conventions). */
const spans = z
  .object({
    /** Read feedback from spans at all (OTLP ingest of `ragwatch start` and `ragwatch collector`). Default true. */
    enabled: z.boolean().default(true),
    /** Span (or span event) attributes holding a thumbs value, matched against `positiveValues` / `negativeValues`. Default `user.feedback`, `rag.feedback`, `feedback.thumbs`, `feedback.value`. */
    thumbsAttributes: names.default(['user.feedback', 'rag.feedback', 'feedback.thumbs', 'feedback.value']),
    /** Span (or span event) attributes holding a 1–5 rating. Default `user.rating`, `user.feedback.rating`, `feedback.rating`. */
    ratingAttributes: names.default(['user.rating', 'user.feedback.rating', 'feedback.rating']),
    /** Span (or span event) attributes holding the user's comment (redacted before it is kept). Default `user.feedback.comment`, `feedback.comment`. */
    commentAttributes: names.default(['user.feedback.comment', 'feedback.comment']),
    /** Span events that carry feedback (their attributes are read as above, plus `value`, `rating`, `comment`). Default `user_feedback`, `user.feedback`, `feedback`. */
    events: names.default(['user_feedback', 'user.feedback', 'feedback']),
    /**
     * Names of human feedback in the annotation conventions: OpenInference `annotations.N.annotation.*` with
     * `annotator_kind` HUMAN, and `gen_ai.evaluation.result` span events (label or score; a name containing
     * `rating` is a 1–5 rating). Default `user_feedback`, `feedback`, `thumbs`, `user_rating`, `rating`.
     */
    annotationNames: names.default(['user_feedback', 'feedback', 'thumbs', 'user_rating', 'rating']),
  })
  .strict();

/** Alert on a rise of the negative share (the change alerts' test and tiers, with counts for sparser feedback). */
const alert = z
  .object({
    /** Generate and evaluate it (in process and in `ragwatch rules`). Default true. */
    enabled: z.boolean().default(true),
    /** Feedback items the baseline needs before the alert may fire. Default 200. */
    minBaselineSamples: z.number().int().positive().default(200),
    /** Feedback items the long recent window needs. Default 20. */
    minSamples: z.number().int().positive().default(20),
  })
  .strict();

/** End users' feedback (thumbs, 1–5 ratings, comments) joined with the judges' verdicts (docs/feedback.md). */
export const feedbackSection = z
  .object({
    /** Accept feedback at all: `POST /v1/ragwatch/feedback` and the span conventions below. Default true. */
    enabled: z.boolean().default(true),
    /** Thumbs values read as positive (strings compared case-insensitively). Default `positive`, `thumbs_up`, `up`, `like`, `good`, `true`, 1, true. */
    positiveValues: z.array(attributeValue).max(64).default(['positive', 'thumbs_up', 'up', 'like', 'good', 'true', 1, true]),
    /** Thumbs values read as negative. Default `negative`, `thumbs_down`, `down`, `dislike`, `bad`, `false`, -1, 0, false. */
    negativeValues: z.array(attributeValue).max(64).default(['negative', 'thumbs_down', 'down', 'dislike', 'bad', 'false', -1, 0, false]),
    /** A rating at or above this (of 1–5) is positive. Default 4. */
    goodRatingAtLeast: z.number().int().min(1).max(5).default(4),
    /** A rating at or below this is negative (between the two: neutral). Default 2. */
    badRatingAtMost: z.number().int().min(1).max(5).default(2),
    /** Longest comment kept (after redaction), characters. Default 1000. */
    maxCommentChars: z.number().int().min(0).max(10_000).default(1_000),
    /** Feedback items kept in the embedded store; the oldest are evicted (counted). Default 100000. */
    maxItems: z.number().int().positive().default(100_000),
    /** Scored answers kept for the join (trace id, response id, scores); the oldest are evicted (counted). Default 100000. */
    maxAnswers: z.number().int().positive().default(100_000),
    /** Releases per service kept as the `release` label of `ragwatch_feedback_total`; further ones count as `other`. Default 10. */
    maxReleases: z.number().int().positive().max(100).default(10),
    spans: spans.prefault({}),
    alert: alert.prefault({}),
  })
  .strict()
  .refine((f) => f.badRatingAtMost < f.goodRatingAtLeast, { message: '`badRatingAtMost` must be below `goodRatingAtLeast`' });

/** Resolved `feedback` section. */
export type FeedbackConfig = z.output<typeof feedbackSection>;

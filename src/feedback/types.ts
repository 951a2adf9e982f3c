/**
 * End users' feedback contracts (DESIGN §22): a thumbs value or a 1–5 rating on an answer, from span
 * attributes/events on the answer's trace or from `POST /v1/ragwatch/feedback`, joined to the scored
 * answer by trace id (or response id). Feedback is a separate label source: never mixed with reviewers'.
 * @module
 */

/** Positive, neutral (a middle rating) or negative: the `value` label of `ragwatch_feedback_total`. */
export type FeedbackPolarity = 'positive' | 'neutral' | 'negative';

/** One feedback item, redacted, as it is stored and shared. */
export interface FeedbackItem {
  /** Idempotency key: the same id replaces (a user changing their mind), never counts twice in the store. */
  id: string;
  /** The answer's trace (32 hex digits); absent when only the response id is known. */
  traceId?: string;
  /** The provider's response id (`gen_ai.response.id`) of the answer. */
  responseId?: string;
  /** The generation span, when the feedback names it. */
  spanId?: string;
  kind: 'thumbs' | 'rating';
  /** Thumbs: 1 up, 0 down; rating: 1–5. */
  value: number;
  polarity: FeedbackPolarity;
  /** The user's comment, redacted and clipped. */
  comment?: string;
  /** The service and release of the answer (bounded labels), or `unknown`. */
  service: string;
  release?: string;
  /** Where it came from. */
  source: 'api' | 'span';
  createdMs: number;
}

/** A scored answer as the join needs it: its ids and each judge's scores. */
export interface FeedbackAnswer {
  tripletId: string;
  traceId: string;
  spanId: string;
  responseId?: string;
  service: string;
  release?: string;
  judge: string;
  model?: string;
  scores: Record<string, number>;
  createdMs: number;
  /** Read from the labels topic (another replica scored it): never shared again from here. */
  replicated?: boolean;
}

/** One judge score with the user's verdict on the same answer (1 good, 0 bad): a point of the users' agreement. */
export interface UserLabelledScore {
  metric: string;
  judge: string;
  score: number;
  label: 0 | 1;
  tripletId: string;
}

/** What the pages read of feedback. */
export interface FeedbackView {
  /** The feedback on one trace (newest first). */
  forTrace(traceId: string): FeedbackItem[];
  /** Every (metric, judge) score of an answer with the user's verdict (neutral feedback left out; one label per answer: its latest). */
  userPoints(): UserLabelledScore[];
  /** Feedback items held. */
  count(): number;
}

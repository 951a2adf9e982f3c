/**
 * Reads end users' feedback where applications already put it on the answer's trace (docs/feedback.md):
 * span attributes (`user.feedback`, `user.rating`, a comment), span events named for feedback (their
 * attributes, or `value` / `rating` / `comment`), OpenInference annotations made by a HUMAN
 * (`annotations.N.annotation.{name,label,score,explanation,annotator_kind}`) and `gen_ai.evaluation.result`
 * span events, both under a configured feedback name. A few map lookups per span: cheap enough for the
 * ingest path. The id is derived from where the feedback was found, so a span sent twice is one item.
 * @module
 */
import { createHash } from 'node:crypto';
import type { Attributes, CapturedSpan } from '../capture/types.ts';
import type { FeedbackConfig } from '../config/sections/feedback.ts';
import type { FeedbackItem } from './types.ts';
import { polarityOf, ratingOf, thumbsOf, type ValueRules } from './values.ts';

/** Feedback found on a span, before its comment is redacted and its labels bounded. */
export type RawFeedback = Omit<FeedbackItem, 'service' | 'release'> & { service?: string; release?: string };

const ANNOTATION = /^(annotations|evaluations)\.(\d{1,3})\.(annotation|evaluation)\.name$/;

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v : undefined;
}

function idOf(span: CapturedSpan, where: string): string {
  return `span-${createHash('sha256').update(`${span.traceId}\u0000${span.spanId}\u0000${where}`).digest('hex').slice(0, 32)}`;
}

/** The value of attributes read under the configured names (and the short names of a feedback event). */
function fromAttributes(attrs: Attributes, config: FeedbackConfig['spans'], rules: ValueRules, short: boolean): { kind: FeedbackItem['kind']; value: number; comment?: string } | undefined {
  const comment = [...config.commentAttributes, ...(short ? ['comment'] : [])].map((k) => text(attrs[k])).find((c) => c !== undefined);
  for (const k of [...config.ratingAttributes, ...(short ? ['rating'] : [])]) {
    const r = ratingOf(attrs[k]);
    if (r !== undefined) return { kind: 'rating', value: r, ...(comment ? { comment } : {}) };
  }
  for (const k of [...config.thumbsAttributes, ...(short ? ['value', 'thumbs'] : [])]) {
    const t = thumbsOf(attrs[k], rules);
    if (t !== undefined) return { kind: 'thumbs', value: t, ...(comment ? { comment } : {}) };
  }
  return undefined;
}

/** A named result (annotation or evaluation event): a name with `rating` reads a 1–5 score, else the label or score as thumbs. */
function fromResult(name: string, label: unknown, score: unknown, rules: ValueRules): { kind: FeedbackItem['kind']; value: number } | undefined {
  if (/rating/i.test(name)) {
    const r = ratingOf(score) ?? ratingOf(label);
    return r === undefined ? undefined : { kind: 'rating', value: r };
  }
  const t = thumbsOf(label, rules) ?? thumbsOf(score, rules);
  return t === undefined ? undefined : { kind: 'thumbs', value: t };
}

/** Every feedback item on one span. */
export function feedbackOfSpan(span: CapturedSpan, config: FeedbackConfig['spans'], rules: ValueRules): RawFeedback[] {
  const out: RawFeedback[] = [];
  const base = (where: string, timeMs: number, responseId: unknown) => ({
    id: idOf(span, where),
    traceId: span.traceId,
    ...(text(responseId) ? { responseId: text(responseId)! } : {}),
    source: 'span' as const,
    createdMs: timeMs,
    ...(text(span.resource['service.name']) ? { service: text(span.resource['service.name'])! } : {}),
    ...(text(span.resource['service.version']) ? { release: text(span.resource['service.version'])! } : {}),
  });
  const push = (where: string, timeMs: number, responseId: unknown, found: { kind: FeedbackItem['kind']; value: number; comment?: string }) =>
    out.push({ ...base(where, timeMs, responseId), kind: found.kind, value: found.value, polarity: polarityOf(found.kind, found.value, rules), ...(found.comment ? { comment: found.comment } : {}) });

  const onSpan = fromAttributes(span.attributes, config, rules, false);
  if (onSpan) push('attributes', span.endMs, span.attributes['gen_ai.response.id'], onSpan);
  const names = new Set(config.annotationNames.map((n) => n.toLowerCase()));
  for (const [key, value] of Object.entries(span.attributes)) {
    const m = ANNOTATION.exec(key);
    if (!m || typeof value !== 'string' || !names.has(value.toLowerCase())) continue;
    const prefix = `${m[1]}.${m[2]}.${m[3]}.`;
    if (span.attributes[`${prefix}annotator_kind`] !== 'HUMAN') continue;
    const found = fromResult(value, span.attributes[`${prefix}label`], span.attributes[`${prefix}score`], rules);
    const comment = text(span.attributes[`${prefix}explanation`]);
    if (found) push(`annotation:${m[2]}`, span.endMs, span.attributes['gen_ai.response.id'], { ...found, ...(comment ? { comment } : {}) });
  }
  const events = new Set(config.events);
  span.events.forEach((e, i) => {
    if (events.has(e.name)) {
      const found = fromAttributes(e.attributes, config, rules, true);
      if (found) push(`event:${i}`, e.timeMs, e.attributes['gen_ai.response.id'] ?? span.attributes['gen_ai.response.id'], found);
    } else if (e.name === 'gen_ai.evaluation.result') {
      const name = text(e.attributes['gen_ai.evaluation.name']);
      if (!name || !names.has(name.toLowerCase())) return;
      const found = fromResult(name, e.attributes['gen_ai.evaluation.score.label'], e.attributes['gen_ai.evaluation.score.value'], rules);
      const comment = text(e.attributes['gen_ai.evaluation.explanation']);
      if (found) push(`event:${i}`, e.timeMs, e.attributes['gen_ai.response.id'] ?? span.attributes['gen_ai.response.id'], { ...found, ...(comment ? { comment } : {}) });
    }
  });
  return out;
}

/**
 * From a score record to its evaluation results: one per scored metric (value, pass/fail label from
 * the metric's threshold, the explanation the details hold) and one per skipped metric (`error.type`
 * = the skip reason). Explanations are built from text that capture already redacted, and are passed
 * through the redaction policy once more before they leave (a judge may quote what it was shown).
 * A judge that failed to score an answer gives one result per metric it was to score, with
 * `error.type` = the failure's code and no score ({@link failureResultsOf}).
 * @module
 */
import type { ScoreFailure } from '../scorer/record-sinks.ts';
import type { SampledTriplet, ScoreRecord } from '../triplet.ts';
import type { EvaluationResult } from './types.ts';

/** Options of {@link evaluationResultsOf}. */
export interface ResultOptions {
  /** `all` metrics, or only `failing` ones ({@link isFailing}, or skipped). */
  select: 'all' | 'failing';
  /** Whether a score fails its metric (at or below its alert threshold). Default: its label is `fail`. */
  isFailing?: (metric: string, score: number) => boolean;
  /** The label of a score (`pass` / `fail` from the metric's threshold, or an evaluator's own); undefined: none. */
  labelOf: (metric: string, score: number) => string | undefined;
  /** Longest explanation, characters (0: none). */
  maxExplanationChars: number;
  /** Redacts explanation texts (one placeholder book per record); undefined when redaction failed (explanations are then left out). */
  redact: (texts: readonly string[]) => string[] | undefined;
}

const CLAIM_METRICS = new Set(['groundedness', 'faithfulness', 'response_precision']);

const list = (items: readonly string[]) => items.filter((t) => t.trim() !== '').join(' · ');

/** The explanation the record's details give for one metric; undefined when they give none. */
export function explanationOf(metric: string, record: ScoreRecord): string | undefined {
  const d = record.details;
  const claims = (pick: (v: string | undefined) => boolean) => d.claims.filter((c) => pick(c.verdict)).map((c) => c.text);
  let text: string | undefined;
  if (CLAIM_METRICS.has(metric)) {
    const unsupported = claims((v) => v === 'contradicted' || v === 'not_in_sources');
    if (unsupported.length > 0) text = `unsupported claims: ${list(unsupported)}`;
  } else if (metric === 'hallucination_free') {
    const contradicted = claims((v) => v === 'contradicted');
    if (contradicted.length > 0) text = `contradicted by the sources: ${list(contradicted)}`;
  } else if (metric === 'grounding_lexical') {
    if (d.unsupportedTokens?.length) text = `not in the sources: ${list(d.unsupportedTokens)}`;
  } else if (metric === 'source_query_coverage') {
    const open = d.subQuestions.filter((q) => q.coveredBySources === false).map((q) => q.text);
    if (open.length > 0) text = `not covered by the sources: ${list(open)}`;
  } else if (metric === 'response_query_coverage') {
    const open = d.subQuestions.filter((q) => q.coveredByResponse === false).map((q) => q.text);
    if (open.length > 0) text = `not answered: ${list(open)}`;
  } else if (metric === 'pii_free') {
    const types = Object.entries(d.piiTypes ?? {});
    if (types.length > 0) text = `personal data disclosed: ${types.map(([t, n]) => `${t}${n > 1 ? ` ×${n}` : ''}`).join(', ')}`;
  } else if (metric === 'non_toxic') {
    if (d.toxicity?.length) text = `toxic: ${d.toxicity.join(', ')}`;
  } else if (metric === 'completeness' || metric === 'completeness_distribution') {
    if (d.uncoveredSources?.length) text = `least covered source sentences: ${list(d.uncoveredSources)}`;
  } else if (metric === 'response_self_distinctness') {
    if (d.redundantSentences.length > 0) text = `${d.redundantSentences.length} pairs of sentences say the same`;
  }
  return text;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, Math.max(0, max - 1))}…` : text;
}

/** The evaluation results of one record (empty when nothing is selected). Never throws on a valid record. */
export function evaluationResultsOf(record: ScoreRecord, triplet: SampledTriplet | undefined, options: ResultOptions): EvaluationResult[] {
  const base = {
    tripletId: record.tripletId,
    traceId: record.traceId,
    spanId: triplet?.spanId ?? '',
    judge: record.judge.model !== undefined ? { kind: record.judge.kind, model: record.judge.model } : { kind: record.judge.kind },
    service: record.service,
    timeMs: Number.isFinite(Date.parse(record.timestamp)) ? Date.parse(record.timestamp) : Date.now(),
    ...(record.release !== undefined ? { release: record.release } : {}),
    ...(triplet?.responseId !== undefined ? { responseId: triplet.responseId } : {}),
  };
  const out: EvaluationResult[] = [];
  const texts: string[] = [];
  const textOf: Array<number | undefined> = [];
  for (const [name, value] of Object.entries(record.scores)) {
    if (value === undefined || !Number.isFinite(value)) continue;
    const label = options.labelOf(name, value);
    if (options.select === 'failing' && !(options.isFailing ? options.isFailing(name, value) : label === 'fail')) continue;
    out.push({ ...base, name, scoreValue: value, ...(label !== undefined ? { scoreLabel: label } : {}) });
    const explanation = options.maxExplanationChars > 0 ? explanationOf(name, record) : undefined;
    textOf.push(explanation === undefined ? undefined : texts.push(clip(explanation, options.maxExplanationChars)) - 1);
  }
  for (const [name, reason] of Object.entries(record.skipped)) {
    if (reason === undefined) continue;
    out.push({ ...base, name, errorType: reason });
    textOf.push(undefined);
  }
  if (texts.length > 0) {
    const redacted = options.redact(texts);
    if (redacted) out.forEach((r, i) => textOf[i] !== undefined && (r.explanation = clip(redacted[textOf[i]!]!, options.maxExplanationChars)));
  }
  return out;
}

/**
 * The results of a judge's failure to score `triplet`: one per metric in `metrics` (those the judge was
 * to score), each with `error.type` = the failure's reason and no score, label or explanation. Failed
 * evaluations are selected under `select: failing` too (an answer nobody could judge is what that
 * selection is for).
 */
export function failureResultsOf(failure: ScoreFailure, triplet: SampledTriplet, metrics: readonly string[]): EvaluationResult[] {
  const base = {
    tripletId: triplet.id,
    traceId: triplet.traceId,
    spanId: triplet.spanId,
    judge: failure.judge.model !== undefined ? { kind: failure.judge.kind, model: failure.judge.model } : { kind: failure.judge.kind },
    service: triplet.service,
    timeMs: failure.timeMs,
    errorType: failure.reason,
    ...(triplet.release !== undefined ? { release: triplet.release } : {}),
    ...(triplet.responseId !== undefined ? { responseId: triplet.responseId } : {}),
  };
  return metrics.map((name) => ({ ...base, name }));
}

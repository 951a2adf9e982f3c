/**
 * Scores the probes' answers offline with the configured judge (the one-shot `probe run`, where no
 * captured trace is at hand): each answered probe with visible sources becomes a triplet — redacted
 * like captured traffic before the judge sees it — and its ScoreRecord feeds the judge audit.
 * @module
 */
import type { TripletRedactor } from '../capture/redaction/types.ts';
import type { EvaluatorSet } from '../evaluators/types.ts';
import type { Judge } from '../judges/types.ts';
import { scoreRecordOf } from '../scorer/score-record.ts';
import type { PiiCheck } from '../judges/pii.ts';
import type { SampledTriplet, ScoreRecord } from '../triplet.ts';
import type { ProbeOutcome } from './runner.ts';

/** Score records by trace id; probes without sources or whose scoring failed are left out. */
export async function scoreProbeAnswers(outcomes: readonly ProbeOutcome[], judge: Judge, redactor: TripletRedactor, concurrency = 4, pii?: PiiCheck, evaluators?: EvaluatorSet): Promise<Map<string, ScoreRecord[]>> {
  const out = new Map<string, ScoreRecord[]>();
  const todo = outcomes.filter((o) => o.outcome !== 'error' && o.answer !== undefined && o.sources !== undefined && o.sources.length > 0);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < todo.length; i = next++) {
      const o = todo[i]!;
      const triplet: SampledTriplet = {
        id: o.traceId, traceId: o.traceId, spanId: '0000000000000000', service: o.query.suite, timestamp: new Date().toISOString(),
        query: o.query.query, sources: o.sources!.map((s) => ({ content: s.content, ...(s.id !== undefined ? { id: s.id } : {}) })), response: o.answer!,
        latency: { durationMs: 0 }, convention: 'custom', origin: 'probe', sampling: { weight: 1, stratum: 'probe', rule: 'probe' },
      };
      const redacted = redactor.redact(triplet);
      if (!redacted.ok) continue;
      const judged = { ...redacted.triplet, sampling: triplet.sampling };
      const result = await judge.score(judged);
      if (result.ok) out.set(o.traceId, [...(out.get(o.traceId) ?? []), scoreRecordOf(judged, judge, result, pii?.(judged), evaluators?.forRecord(judged, judge.kind, result))]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, todo.length) }, worker));
  return out;
}

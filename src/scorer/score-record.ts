/**
 * Builds the ScoreRecord (DESIGN §5) for a judged triplet — shared by the scorer and the offline
 * `ragwatch score` command so both emit the same shape.
 * @module
 */
import type { Evaluations } from '../evaluators/types.ts';
import type { PiiFinding } from '../judges/pii.ts';
import type { Judge, JudgeScores } from '../judges/types.ts';
import type { SampledTriplet, ScoreRecord } from '../triplet.ts';

/**
 * The record for `triplet` judged by `judge` with `result`, stamped now; `pii` (the triplet's finding)
 * adds `pii_free` (both judges); `evaluations` add the configured evaluators' checks and skips.
 */
export function scoreRecordOf(triplet: SampledTriplet, judge: Pick<Judge, 'kind' | 'model'>, result: JudgeScores, pii?: PiiFinding, evaluations?: Evaluations): ScoreRecord {
  const record: ScoreRecord = {
    tripletId: triplet.id,
    traceId: triplet.traceId,
    service: triplet.service,
    stratum: triplet.sampling.stratum,
    weight: triplet.sampling.weight,
    timestamp: new Date().toISOString(),
    judge: judge.model ? { kind: judge.kind, model: judge.model } : { kind: judge.kind },
    scores: result.scores,
    skipped: result.skipped,
    details: result.details,
    diagnosis: [],
    usage: result.usage,
  };
  if (pii) {
    record.scores = { ...record.scores, pii_free: pii.free };
    if (pii.free === 0) record.details = { ...record.details, piiTypes: pii.types };
  }
  if (evaluations) {
    record.scores = { ...record.scores, ...evaluations.scores };
    record.skipped = { ...record.skipped, ...evaluations.skipped };
    if (Object.keys(evaluations.explanations).length > 0) record.details = { ...record.details, evaluators: { ...record.details.evaluators, ...evaluations.explanations } };
  }
  if (triplet.route !== undefined) record.route = triplet.route;
  if (triplet.release !== undefined) record.release = triplet.release;
  if (triplet.model !== undefined) record.model = triplet.model;
  if (triplet.conversation !== undefined) record.conversation = triplet.conversation;
  if (triplet.origin !== undefined) record.origin = triplet.origin;
  return record;
}

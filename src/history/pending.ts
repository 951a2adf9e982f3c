/**
 * Score sums waiting in memory for the next write: adding an answer is a few additions on a map entry,
 * so the history costs the scoring path no I/O.
 * @module
 */
import type { RollupSums, SeriesKey } from './types.ts';

/** The sums of one series over one minute, not written yet. */
export interface PendingRollup {
  key: SeriesKey;
  /** Minutes since the epoch. */
  minute: number;
  sums: RollupSums;
}

/** Pending rollups by series and minute. */
export type PendingRollups = Map<string, PendingRollup>;

/** Sums of no answer. */
export const emptySums = (): RollupSums => ({ answers: 0, weight: 0, weightedSum: 0, weightedSquares: 0, squaredWeights: 0, flaggedWeight: undefined });

/** Adds one answer's score (in [0,1]) with its sampling weight; `flagged` undefined for a metric without threshold. */
export function addScore(into: RollupSums, score: number, weight: number, flagged: boolean | undefined): void {
  into.answers += 1;
  into.weight += weight;
  into.weightedSum += weight * score;
  into.weightedSquares += weight * score * score;
  into.squaredWeights += weight * weight;
  if (flagged !== undefined) into.flaggedWeight = (into.flaggedWeight ?? 0) + (flagged ? weight : 0);
}

/** Adds `b` into `a`. */
export function addSums(a: RollupSums, b: RollupSums): void {
  a.answers += b.answers;
  a.weight += b.weight;
  a.weightedSum += b.weightedSum;
  a.weightedSquares += b.weightedSquares;
  a.squaredWeights += b.squaredWeights;
  if (b.flaggedWeight !== undefined) a.flaggedWeight = (a.flaggedWeight ?? 0) + b.flaggedWeight;
}

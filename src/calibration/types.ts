/**
 * Calibration contracts (HCAT §5, DESIGN §14): human labels turn a judge score into P(a human says
 * good), and split conformal prediction turns that into a prediction set — {good}, {bad}, or
 * {good, bad}: the judge cannot tell, a person should look.
 * @module
 */

/** One judge score with the human verdict on the same answer (1 = good, 0 = bad). */
export interface LabelledScore {
  score: number;
  label: 0 | 1;
  /** Stable id of the labelled answer (deterministic splits hash it). */
  id: string;
}

/** A fitted map from score to P(good). */
export type CalibrationMap =
  | { method: 'platt'; a: number; b: number }
  /** Isotonic (PAVA): non-decreasing steps; `x` block edges (ascending), `y` their values, linear between blocks. */
  | { method: 'isotonic'; x: number[]; y: number[] };

/** Which labels a calibration may use and what the conformal layer needs. */
export interface ConformalModel {
  alpha: number;
  /** The conformal threshold on the nonconformity 1 − P(true label). */
  qhat: number;
  /** Size of the conformal part the threshold came from. */
  n: number;
}

/** The prediction set of one answer. */
export type PredictionSet = 'good' | 'bad' | 'both' | 'empty';

/** A saved calibration of one (metric, judge) — what `calibration.file` holds per entry. */
export interface CalibrationModel {
  metric: string;
  judge: string;
  /** The human-labelled concept it was fitted to (`groundedness` for `grounding_lexical`, …). */
  labelMetric: string;
  map: CalibrationMap;
  conformal: ConformalModel;
  /** Labels used (all parts). */
  n: number;
  /** Brier score of the calibrated probabilities on the held-out test part (null when too small). */
  brier: number | null;
  /** ISO time of the fit. */
  fittedAt: string;
}

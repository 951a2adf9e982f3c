/**
 * Fits the calibration of one (metric, judge) from human labels and reports its agreement (HCAT §5):
 * a deterministic split of the labels by a hash of their ids — fit 60 %, conformal 20 %, test 20 % —
 * Platt and isotonic compared by 5-fold cross-validated Brier score on the fit part (the lower wins),
 * split conformal on the conformal part, and every figure measured on the test part.
 * @module
 */
import { createHash } from 'node:crypto';
import { fitConformal, predictionSet } from './conformal.ts';
import { fitIsotonic, isotonicPredict } from './isotonic.ts';
import { auc, brier, ece, kappa, spearman } from './measures.ts';
import { fitPlatt, plattPredict } from './platt.ts';
import type { CalibrationMap, CalibrationModel, LabelledScore, PredictionSet } from './types.ts';

/** Options of {@link fitCalibration}; all optional. */
export interface FitOptions {
  /** Miscoverage of the prediction sets. Default 0.1. */
  alpha?: number;
  /** Fewer labels than this: no calibration (reported). Default 30. */
  minLabels?: number;
  /** The metric's alert threshold, for Cohen's κ of "score ≥ threshold" against the labels. */
  threshold?: number;
  /** Clock for `fittedAt`. */
  now?: () => Date;
}

/** The agreement report of one (metric, judge) (`ragwatch calibrate --json`, `/calibration`). */
export interface CalibrationReport {
  metric: string;
  judge: string;
  labelMetric: string;
  n: number;
  /** Why there is no calibration (too few labels, one class only); absent when fitted. */
  skipped?: string;
  auc: number | null;
  spearman: number | null;
  kappa: number | null;
  brierRaw: number | null;
  brierCalibrated: number | null;
  eceRaw: number | null;
  eceCalibrated: number | null;
  method: 'platt' | 'isotonic' | null;
  alpha: number;
  /** Share of test answers whose set holds the human label. */
  coverage: number | null;
  setSizes: { empty: number; single: number; both: number } | null;
  needsReviewRatio: number | null;
  /** Test-part points (score, calibrated p, label) for the reliability diagram. */
  test: Array<{ score: number; p: number; label: 0 | 1 }>;
}

/** P(good) under a fitted map. */
export function applyMap(map: CalibrationMap, score: number): number {
  return map.method === 'platt' ? plattPredict(map, score) : isotonicPredict(map, score);
}

/** A deterministic number in [0, 1) from an id. */
function unit(id: string, salt: string): number {
  return createHash('sha256').update(salt).update(id).digest().readUInt32BE(0) / 2 ** 32;
}

function fitMap(method: 'platt' | 'isotonic', points: readonly LabelledScore[]): CalibrationMap {
  return method === 'platt' ? { method, ...fitPlatt(points) } : { method, ...fitIsotonic(points) };
}

const hasBoth = (points: readonly LabelledScore[]) => points.some((p) => p.label === 1) && points.some((p) => p.label === 0);

/** Cross-validated Brier score of a method on `points` (5 folds by id hash); Infinity when a fold cannot be fitted. */
function cvBrier(method: 'platt' | 'isotonic', points: readonly LabelledScore[]): number {
  const folds = points.map((p) => Math.floor(unit(p.id, 'cv') * 5));
  const p: number[] = [];
  const y: Array<0 | 1> = [];
  for (let f = 0; f < 5; f++) {
    const train = points.filter((_, i) => folds[i] !== f);
    const held = points.filter((_, i) => folds[i] === f);
    if (held.length === 0) continue;
    if (!hasBoth(train)) return Infinity;
    const map = fitMap(method, train);
    for (const h of held) {
      p.push(applyMap(map, h.score));
      y.push(h.label);
    }
  }
  return brier(p, y) ?? Infinity;
}

/** Fits and reports; `model` is undefined when there are too few labels or one class only. */
export function fitCalibration(
  key: { metric: string; judge: string; labelMetric: string },
  points: readonly LabelledScore[],
  options: FitOptions = {},
): { model: CalibrationModel | undefined; report: CalibrationReport } {
  // Only the three names: callers may pass a richer object (e.g. with its points).
  key = { metric: key.metric, judge: key.judge, labelMetric: key.labelMetric };
  const alpha = options.alpha ?? 0.1;
  const minLabels = options.minLabels ?? 30;
  const parts = { fit: [] as LabelledScore[], conformal: [] as LabelledScore[], test: [] as LabelledScore[] };
  for (const p of points) {
    const u = unit(p.id, 'split');
    (u < 0.6 ? parts.fit : u < 0.8 ? parts.conformal : parts.test).push(p);
  }
  const empty: CalibrationReport = {
    ...key, n: points.length, auc: null, spearman: null, kappa: null, brierRaw: null, brierCalibrated: null, eceRaw: null, eceCalibrated: null,
    method: null, alpha, coverage: null, setSizes: null, needsReviewRatio: null, test: [],
  };
  if (points.length < minLabels) return { model: undefined, report: { ...empty, skipped: `${points.length} labels < ${minLabels} (calibration.minLabels)` } };
  if (!hasBoth(parts.fit)) return { model: undefined, report: { ...empty, skipped: 'the labels of the fit part are all of one kind' } };
  if (parts.conformal.length === 0) return { model: undefined, report: { ...empty, skipped: 'no label fell in the conformal part' } };
  const method = cvBrier('platt', parts.fit) <= cvBrier('isotonic', parts.fit) ? 'platt' : 'isotonic';
  const map = fitMap(method, parts.fit);
  const conformal = fitConformal(parts.conformal.map((p) => applyMap(map, p.score)), parts.conformal.map((p) => p.label), alpha);
  const ts = parts.test.map((p) => p.score);
  const ty = parts.test.map((p) => p.label);
  const tp = ts.map((s) => applyMap(map, s));
  const sets: PredictionSet[] = tp.map((p) => predictionSet(conformal, p));
  const share = (k: PredictionSet) => sets.filter((s) => s === k).length / sets.length;
  const covered = sets.filter((s, i) => s === 'both' || (s === 'good' && ty[i] === 1) || (s === 'bad' && ty[i] === 0)).length;
  const hasTest = parts.test.length > 0;
  const brierCalibrated = brier(tp, ty);
  const model: CalibrationModel = { ...key, map, conformal, n: points.length, brier: brierCalibrated, fittedAt: (options.now?.() ?? new Date()).toISOString() };
  return {
    model,
    report: {
      ...empty,
      auc: auc(ts, ty),
      spearman: spearman(ts, ty),
      kappa: options.threshold === undefined ? null : kappa(ts, ty, options.threshold),
      brierRaw: brier(ts.map(clamp01), ty),
      brierCalibrated,
      eceRaw: ece(ts.map(clamp01), ty),
      eceCalibrated: ece(tp, ty),
      method,
      coverage: hasTest ? covered / sets.length : null,
      setSizes: hasTest ? { empty: share('empty'), single: share('good') + share('bad'), both: share('both') } : null,
      needsReviewRatio: hasTest ? share('both') : null,
      test: parts.test.map((p, i) => ({ score: p.score, p: tp[i]!, label: p.label })),
    },
  };
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

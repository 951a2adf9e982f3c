/**
 * Worker thread of the online refit: fits every (metric, judge) group off the scoring thread (a fit
 * on 10,000 labels takes ~150 ms — a stall the scorer must not see).
 * @module
 */
import { parentPort } from 'node:worker_threads';
import { fitCalibration, type FitOptions } from './fit.ts';
import type { CalibrationModel, LabelledScore } from './types.ts';

/** One fit request. */
export interface FitRequest {
  id: number;
  groups: Array<{ metric: string; judge: string; labelMetric: string; points: LabelledScore[]; threshold?: number }>;
  options: Omit<FitOptions, 'now' | 'threshold'>;
}

/** Its answer: the models fitted (groups that could not be fitted are left out, with why). */
export interface FitResponse {
  id: number;
  models: CalibrationModel[];
  skipped: Array<{ metric: string; judge: string; reason: string }>;
}

parentPort?.on('message', (req: FitRequest) => {
  const models: CalibrationModel[] = [];
  const skipped: FitResponse['skipped'] = [];
  for (const g of req.groups) {
    const { model, report } = fitCalibration(g, g.points, { ...req.options, ...(g.threshold !== undefined ? { threshold: g.threshold } : {}) });
    if (model) models.push(model);
    else skipped.push({ metric: g.metric, judge: g.judge, reason: report.skipped ?? 'not fitted' });
  }
  parentPort!.postMessage({ id: req.id, models, skipped } satisfies FitResponse);
});

/**
 * The metrics whose share of flagged answers is watched against a reference (the change alerts'
 * own baseline, the slices' baseline or the rest of the service): `change: true`, or unset on a
 * page-severity metric with an alert; each flagged at or below its threshold (or, `on: calibrated`,
 * with its calibrated P(bad)).
 * @module
 */
import type { RagwatchConfig } from '../config/schema.ts';

/** One watched metric: its cut and how an answer counts. */
export interface FlagRule {
  metric: string;
  /** Answers scoring at or below this are flagged (the metric's alert threshold). */
  cut: number;
  /** `calibrated` (the metric's `on`): an answer counts as flagged with its calibrated P(bad) instead. */
  on: 'raw' | 'calibrated';
}

/** The watched metrics of a configuration, by name. */
export function flagRulesFromConfig(alerts: RagwatchConfig['alerts']): FlagRule[] {
  return Object.entries(alerts.metrics)
    .filter(([, a]) => a.change ?? (a.alert && a.severity === 'page'))
    .map(([metric, a]) => ({ metric, cut: a.threshold, on: a.on }))
    .sort((a, b) => a.metric.localeCompare(b.metric));
}

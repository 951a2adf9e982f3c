/**
 * The metrics whose share of flagged answers is watched against a reference (the change alerts'
 * own baseline, the slices' baseline or the rest of the service): `change: true`, or unset on a
 * page-severity metric with an alert; each flagged at or below its threshold (or, `on: calibrated`,
 * with its calibrated P(bad)).
 * @module
 */
import type { Registry } from 'prom-client';
import type { RagwatchConfig } from '../config/schema.ts';
import type { Logger } from '../log.ts';
import type { ScoreRecord } from '../triplet.ts';
import type { AlertNotifier } from './notifier.ts';

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

/** The options every monitor of flagged answers (change alerts, slices) takes besides its rules and state. */
export interface FlagMonitorOptions {
  registry?: Registry;
  notifier?: AlertNotifier;
  /** The bounded `service` label of a record (the metrics consumer's). Default: the record's service. */
  serviceOf?: (record: ScoreRecord) => string;
  /** Clock, milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
  /** Evaluation interval of the timer, milliseconds. Default 15000. */
  intervalMs?: number;
  /** Saves at most this often, milliseconds. Default 300000. */
  saveIntervalMs?: number;
  /** Base URL of the examples page (annotations). */
  examplesUrl?: string;
  /** Calibrated P(good) of a score (the calibration consumer's), for metrics `on: calibrated`; undefined = not calibrated (skipped). */
  probability?: (metric: string, judge: string, score: number) => number | undefined;
  logger?: Logger;
}

/** Runs `evaluate` every `options.intervalMs` (default 15 s) on an unref'd timer; a throw is logged (`failed` names the evaluation), never escapes the timer. */
export function evaluateEvery(evaluate: () => void, options: Pick<FlagMonitorOptions, 'intervalMs' | 'logger'>, failed: string): NodeJS.Timeout {
  return setInterval(() => {
    try {
      evaluate();
    } catch (err) {
      options.logger?.warn({ err }, failed);
    }
  }, options.intervalMs ?? 15_000).unref();
}

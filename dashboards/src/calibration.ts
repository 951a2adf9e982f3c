/**
 * The "Calibration (human labels)" row of the RAG quality dashboard: the raw mean judge score next to
 * the calibrated probability that a person calls the answer good, the share of answers the calibrated
 * judge cannot decide, and the labels and age of each calibration in use (docs/calibration.md).
 * @module
 */
import { BigValueColorMode, BigValueGraphMode, ReduceDataOptionsBuilder } from '@grafana/grafana-foundation-sdk/common';
import { RowBuilder, type DashboardBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import * as stat from '@grafana/grafana-foundation-sdk/stat';
import { lowerIsBetter, perMetricShares, prom, promInstant } from './common.ts';

/** Adds the "Calibration (human labels)" row: raw vs calibrated means, needs-review share, labels and age. */
export function withCalibrationRow(dashboard: DashboardBuilder, scoreSelector: string): DashboardBuilder {
  return dashboard
    .withRow(new RowBuilder('Calibration (human labels)'))
    .withPanel(
      perMetricShares(
        '$metric: raw score vs calibrated P(good)',
        'Raw: the weighted mean judge score. Calibrated: the weighted mean probability that a person calls the answer good, from the calibration fitted to human labels (docs/calibration.md). Absent for metrics without a calibration.',
      )
        .max(1)
        .withTarget(prom(`max by (service) (ragwatch_score_mean_ratio{${scoreSelector}})`, '{{service}} raw', 'A'))
        .withTarget(prom(`max by (service) (ragwatch_score_calibrated_mean_ratio{${scoreSelector}})`, '{{service}} calibrated', 'B')),
    )
    .withPanel(
      new stat.PanelBuilder()
        .title('Needs review (the calibrated judge cannot tell)')
        .description('Share of scored answers whose conformal prediction set is {good, bad}: route them to /review or to a stronger judge.')
        .height(5)
        .span(12)
        .unit('percentunit')
        .decimals(1)
        .colorMode(BigValueColorMode.Value)
        .graphMode(BigValueGraphMode.Area)
        .reduceOptions(new ReduceDataOptionsBuilder().calcs(['lastNotNull']))
        .thresholds(lowerIsBetter(0.3, 0.6))
        .withTarget(promInstant('max by (metric, judge) (ragwatch_needs_review_ratio)', '{{metric}} ({{judge}})')),
    )
    .withPanel(
      new stat.PanelBuilder()
        .title('Calibration in use: labels and age')
        .description('Human labels each calibration was fitted on, and hours since the fit (refits every calibration.refitIntervalMs once enough new labels arrived).')
        .height(5)
        .span(12)
        .colorMode(BigValueColorMode.None)
        .graphMode(BigValueGraphMode.None)
        .reduceOptions(new ReduceDataOptionsBuilder().calcs(['lastNotNull']))
        .withTarget(promInstant('max by (metric, judge) (ragwatch_calibration_labels)', '{{metric}} ({{judge}}) labels', 'A'))
        .withTarget(promInstant('max by (metric, judge) (ragwatch_calibration_age_seconds) / 3600', '{{metric}} ({{judge}}) hours old', 'B')),
    );
}

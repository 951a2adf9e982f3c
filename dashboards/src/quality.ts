/**
 * "RAG quality" dashboard: per judge metric, the current weighted mean coloured by its threshold,
 * the windowed mean over time with the threshold line, sample counts, the score distribution,
 * what ragwatch's in-process evaluator says (active alerts, diagnosis), risk and safety, and the ground-truth probes.
 * @module
 */
import { BigValueColorMode, BigValueGraphMode, ReduceDataOptionsBuilder, VizOrientation } from '@grafana/grafana-foundation-sdk/common';
import { MappingType, RowBuilder, ThresholdsConfigBuilder, ThresholdsMode, type DashboardBuilder, type ValueMapping } from '@grafana/grafana-foundation-sdk/dashboard';
import * as heatmap from '@grafana/grafana-foundation-sdk/heatmap';
import { PromQueryFormat } from '@grafana/grafana-foundation-sdk/prometheus';
import * as stat from '@grafana/grafana-foundation-sdk/stat';
import * as timeseries from '@grafana/grafana-foundation-sdk/timeseries';
import { JUDGE, SERVICE, perMetricShares, prom, promInstant, ragwatchDashboard } from './common.ts';
import { withCalibrationRow } from './calibration.ts';
import { withProbesRow } from './probes.ts';
import { withExamsRow } from './exams.ts';
import { withSafetyRow } from './safety.ts';
import { withAlertingRow } from './alerting.ts';
import { withQueryTypeRow } from './weakness.ts';

const SCORE = `metric="$metric", ${JUDGE}, ${SERVICE}`;

/**
 * Weighted mean of one metric over `$window`: the histogram is observed with the sampling weight,
 * so sum/count is unbiased across strata and replicas.
 */
export const WEIGHTED_MEAN = `sum(increase(ragwatch_score_ratio_sum{${SCORE}}[$window])) / sum(increase(ragwatch_score_ratio_count{${SCORE}}[$window]))`;
/** The configured threshold of one metric (exported by ragwatch from `alerts.metrics`). */
export const THRESHOLD = 'max(ragwatch_threshold_ratio{metric="$metric"})';

const FIRING: ValueMapping[] = [
  { type: MappingType.ValueToText as const, options: { '0': { text: 'ok', color: 'green', index: 0 }, '1': { text: 'FIRING', color: 'red', index: 1 } } },
];
const SUSPECT: ValueMapping[] = [
  { type: MappingType.ValueToText as const, options: { '0': { text: 'ok', color: 'green', index: 0 }, '1': { text: 'SUSPECT', color: 'orange', index: 1 } } },
];

function currentMean(): stat.PanelBuilder {
  return new stat.PanelBuilder()
    .title('$metric')
    .description('Weighted mean over $window (sampling weights applied). Green at or above the metric\'s configured threshold (alerts.metrics.<metric>.threshold), red below it — and red when the metric has no configured threshold.')
    .repeat('metric')
    .repeatDirection('h')
    .maxPerRow(6)
    .height(5)
    // Full width: Grafana splits the row among the repeats (up to maxPerRow per row).
    .span(24)
    .unit('percentunit')
    .min(0)
    .max(1)
    .decimals(2)
    .colorMode(BigValueColorMode.Background)
    .graphMode(BigValueGraphMode.Area)
    .reduceOptions(new ReduceDataOptionsBuilder().calcs(['lastNotNull']))
    // Red below, green from the metric's configured threshold: the configFromData transformation adds the
    // green step at ragwatch_threshold_ratio{metric} (query B), so the colour follows the deployed config.
    .thresholds(new ThresholdsConfigBuilder().mode(ThresholdsMode.Absolute).steps([{ value: null, color: 'red' }]))
    .withTarget(promInstant(WEIGHTED_MEAN, 'mean', 'A'))
    .withTarget(promInstant(THRESHOLD, 'threshold', 'B'))
    .withTransformation({
      id: 'configFromData',
      options: { configRefId: 'B', mappings: [{ fieldName: 'threshold', handlerKey: 'threshold1', handlerArguments: { threshold: { color: 'green' } } }] },
    });
}

function meanOverTime(): timeseries.PanelBuilder {
  return perMetricShares('$metric: weighted mean over $window', 'Windowed weighted mean per service, and the configured threshold (dashed). An alert also needs minSamples in the window and `for:`.')
    .max(1)
    .withTarget(prom(`sum by (service) (increase(ragwatch_score_ratio_sum{${SCORE}}[$window])) / sum by (service) (increase(ragwatch_score_ratio_count{${SCORE}}[$window]))`, '{{service}}', 'A'))
    .withTarget(prom(THRESHOLD, 'threshold', 'B'))
    .overrideByName('threshold', [
      { id: 'custom.lineStyle', value: { fill: 'dash', dash: [10, 10] } },
      { id: 'color', value: { mode: 'fixed', fixedColor: 'red' } },
    ]);
}

/** Builds the "RAG quality" dashboard. */
export function qualityDashboard(): DashboardBuilder {
  const dashboard = ragwatchDashboard({
    uid: 'ragwatch-quality',
    title: 'ragwatch / RAG quality',
    description: 'Judge scores of sampled RAG answers: weighted means against thresholds, sample counts, distribution, alerts and diagnosis.',
    qualityVariables: true,
  })
    .withRow(new RowBuilder('Now'))
    .withPanel(currentMean())
    .withPanel(
      new stat.PanelBuilder()
        .title('Active alerts (ragwatch evaluator)')
        .description('ragwatch_alert_active from the in-process evaluator, for every metric with alert: true (same semantics as the generated Prometheus rules).')
        .height(5)
        .span(12)
        .colorMode(BigValueColorMode.Background)
        .graphMode(BigValueGraphMode.None)
        .orientation(VizOrientation.Horizontal)
        .reduceOptions(new ReduceDataOptionsBuilder().calcs(['lastNotNull']))
        .mappings(FIRING)
        .withTarget(promInstant('max by (metric, severity) (ragwatch_alert_active)', '{{metric}} ({{severity}})')),
    )
    .withPanel(
      new stat.PanelBuilder()
        .title('Diagnosis: likely component')
        .description('THELMA metric interplay evaluated on the windowed means (ragwatch_diagnosis_active).')
        .height(5)
        .span(12)
        .colorMode(BigValueColorMode.Background)
        .graphMode(BigValueGraphMode.None)
        .orientation(VizOrientation.Horizontal)
        .reduceOptions(new ReduceDataOptionsBuilder().calcs(['lastNotNull']))
        .mappings(SUSPECT)
        .withTarget(promInstant('max by (component) (ragwatch_diagnosis_active)', '{{component}}')),
    )
    .withRow(new RowBuilder('Over time'))
    .withPanel(meanOverTime())
    .withPanel(
      new timeseries.PanelBuilder()
        .title('Judged samples in the window')
        .description('Judged samples per metric in $window (unweighted, ragwatch_score_samples_total): an alert needs at least minSamples, exactly as the generated rules count them.')
        .height(8)
        .span(12)
        .unit('short')
        .withTarget(prom(`sum by (metric) (increase(ragwatch_score_samples_total{metric=~"$metric", ${JUDGE}, ${SERVICE}}[$window]))`, '{{metric}}')),
    )
    .withPanel(
      new timeseries.PanelBuilder()
        .title('Scores observed per second (weighted)')
        .description('Rate of weighted score observations: each sampled triplet counts 1/p.')
        .height(8)
        .span(12)
        .unit('ops')
        .withTarget(prom(`sum by (metric) (rate(ragwatch_score_ratio_count{metric=~"$metric", ${JUDGE}, ${SERVICE}}[$__rate_interval]))`, '{{metric}}')),
    )
    .withPanel(
      new heatmap.PanelBuilder()
        .title('Score distribution')
        .description('Weighted score histogram of the selected metrics, per time bucket.')
        .height(9)
        .span(24)
        .calculate(false)
        .color(new heatmap.HeatmapColorOptionsBuilder().mode(heatmap.HeatmapColorMode.Scheme).scheme('RdYlGn').steps(64))
        .yAxis(new heatmap.YAxisConfigBuilder().unit('percentunit').min(0).max(1))
        .withTarget(
          prom(`sum by (le) (increase(ragwatch_score_ratio_bucket{metric=~"$metric", ${JUDGE}, ${SERVICE}}[$__rate_interval]))`, '{{le}}').format(PromQueryFormat.Heatmap),
        ),
    );
  return withExamsRow(withProbesRow(withCalibrationRow(withSafetyRow(withQueryTypeRow(withAlertingRow(dashboard))), SCORE)));
}

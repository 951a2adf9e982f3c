/**
 * The "Where (question types)" row of the RAG quality dashboard: each metric's weighted mean per
 * question type (docs/weaknesses.md), so a drop shows *which* kind of question it hits.
 * @module
 */
import { BigValueColorMode, BigValueGraphMode, ReduceDataOptionsBuilder, VizOrientation } from '@grafana/grafana-foundation-sdk/common';
import { RowBuilder, ThresholdsConfigBuilder, ThresholdsMode, type DashboardBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import * as stat from '@grafana/grafana-foundation-sdk/stat';
import { JUDGE, promInstant } from './common.ts';

/** Adds the row. */
export function withQueryTypeRow(dashboard: DashboardBuilder): DashboardBuilder {
  return dashboard.withRow(new RowBuilder('Where (question types)')).withPanel(
    new stat.PanelBuilder()
      .title('$metric by question type')
      .description('Weighted mean over metrics.windowMs per question type (what, who, when, where, why, how, yes_no, comparison, list, numeric, other — readable rules, docs/weaknesses.md). Red below the metric\'s threshold.')
      .repeat('metric')
      .repeatDirection('h')
      .maxPerRow(2)
      .height(7)
      .span(24)
      .unit('percentunit')
      .decimals(2)
      .min(0)
      .max(1)
      .orientation(VizOrientation.Horizontal)
      .colorMode(BigValueColorMode.Background)
      .graphMode(BigValueGraphMode.None)
      .reduceOptions(new ReduceDataOptionsBuilder().calcs(['lastNotNull']))
      .thresholds(new ThresholdsConfigBuilder().mode(ThresholdsMode.Absolute).steps([{ value: null, color: 'red' }]))
      .withTarget(promInstant(`max by (query_type) (ragwatch_score_by_query_type_mean_ratio{metric="$metric", ${JUDGE}})`, '{{query_type}}', 'A'))
      .withTarget(promInstant('max(ragwatch_threshold_ratio{metric="$metric"})', 'threshold', 'B'))
      .withTransformation({ id: 'configFromData', options: { configRefId: 'B', mappings: [{ fieldName: 'threshold', handlerKey: 'threshold1', handlerArguments: { threshold: { color: 'green' } } }] } }),
  );
}

/**
 * The "Where" row of the RAG quality dashboard (docs/weaknesses.md): each metric's weighted mean per
 * question type and per question topic, the topic × question type heat map of the bivariate metrics,
 * and the flagged cells — so a drop shows *which* questions it hits.
 * @module
 */
import { BigValueColorMode, BigValueGraphMode, ReduceDataOptionsBuilder, TableCellDisplayMode, VizOrientation } from '@grafana/grafana-foundation-sdk/common';
import { FieldColorBuilder, FieldColorModeId, RowBuilder, ThresholdsConfigBuilder, ThresholdsMode, type DashboardBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import { PromQueryFormat } from '@grafana/grafana-foundation-sdk/prometheus';
import * as stat from '@grafana/grafana-foundation-sdk/stat';
import * as table from '@grafana/grafana-foundation-sdk/table';
import { JUDGE, promInstant } from './common.ts';

/** A metric's cells with their topic names (`other` has none in ragwatch_topic_info, so it is named here). */
const NAMED_CELLS = `max by (label, query_type) ((ragwatch_weakness_cell_mean_ratio{metric="$metric", ${JUDGE}} * on (topic) group_left (label) ragwatch_topic_info) or label_replace(ragwatch_weakness_cell_mean_ratio{metric="$metric", topic="other", ${JUDGE}}, "label", "other", "", ""))`;

/** Adds the row. */
export function withQueryTypeRow(dashboard: DashboardBuilder): DashboardBuilder {
  return dashboard
    .withRow(new RowBuilder('Where (question types and topics)'))
    .withPanel(byDimension('query_type', `max by (query_type) (ragwatch_score_by_query_type_mean_ratio{metric="$metric", ${JUDGE}})`, '{{query_type}}', 'Weighted mean over metrics.windowMs per question type (what, who, when, where, why, how, yes_no, comparison, list, numeric, other — readable rules, docs/weaknesses.md). Red below the metric\'s threshold.'))
    .withPanel(byDimension('topic', `max by (topic, label) (ragwatch_score_by_topic_mean_ratio{metric="$metric", ${JUDGE}} * on (topic) group_left (label) ragwatch_topic_info)`, '{{topic}} {{label}}', 'Weighted mean over metrics.windowMs per question topic (learnt from the first weakness.warmupQueries questions; named by their most distinctive words). Red below the metric\'s threshold.'))
    .withPanel(
      new table.PanelBuilder()
        .title('$metric: topic × question type')
        .description('Heat map of the weighted mean per question topic (rows) and question type (columns), for the weakness.bivariateMetrics (groundedness-type by default). Red is low; the flagged cells are listed beside it.')
        .repeat('metric')
        .repeatDirection('h')
        .maxPerRow(2)
        .height(9)
        .span(16)
        .decimals(2)
        .min(0)
        .max(1)
        .colorScheme(new FieldColorBuilder().mode(FieldColorModeId.ContinuousRdYlGr))
        .cellOptions({ type: TableCellDisplayMode.ColorBackground })
        .withTarget(promInstant(NAMED_CELLS, undefined, 'A').format(PromQueryFormat.Table))
        .withTransformation({ id: 'groupingToMatrix', options: { columnField: 'query_type', rowField: 'label', valueField: 'Value', emptyValue: 'null' } }),
    )
    .withPanel(
      new table.PanelBuilder()
        .title('$metric: flagged cells')
        .description('Cells worse than the rest of the traffic: 95 % interval below the rest, Benjamini–Hochberg at weakness.fdr, at least weakness.minCount answers (docs/weaknesses.md). Worst first; the /weaknesses page links each to its worst answers.')
        .repeat('metric')
        .repeatDirection('h')
        .maxPerRow(2)
        .height(9)
        .span(8)
        .decimals(2)
        .withTarget(promInstant(`sort(ragwatch_weakness_flagged{metric="$metric", ${JUDGE}})`, undefined, 'A').format(PromQueryFormat.Table))
        .withTransformation({ id: 'organize', options: { excludeByName: { Time: true, __name__: true, instance: true, job: true, metric: true }, renameByName: { Value: 'mean' } } }),
    );
}

/** Stat panels of a metric's mean per value of one dimension, red below its threshold. */
function byDimension(dimension: string, expr: string, legend: string, description: string): stat.PanelBuilder {
  return (
    new stat.PanelBuilder()
      .title(`$metric by ${dimension === 'query_type' ? 'question type' : 'question topic'}`)
      .description(description)
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
      .withTarget(promInstant(expr, legend, 'A'))
      .withTarget(promInstant('max(ragwatch_threshold_ratio{metric="$metric"})', 'threshold', 'B'))
      .withTransformation({ id: 'configFromData', options: { configRefId: 'B', mappings: [{ fieldName: 'threshold', handlerKey: 'threshold1', handlerArguments: { threshold: { color: 'green' } } }] } })
  );
}

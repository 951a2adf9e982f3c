/**
 * The "Drops against the service's own normal" row of the RAG quality dashboard (docs/alerts.md): per
 * metric, the share of flagged answers over the change alert's long window against its baseline, the
 * alerts firing by kind (change, burn rate, threshold), and the SLOs' error budget left.
 * @module
 */
import { RowBuilder, type DashboardBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import * as stat from '@grafana/grafana-foundation-sdk/stat';
import * as timeseries from '@grafana/grafana-foundation-sdk/timeseries';
import { JUDGE, SERVICE, perMetricShares, prom } from './common.ts';

const SERIES = `metric=~"$metric", ${JUDGE}, ${SERVICE}`;

/** Adds the row. */
export function withAlertingRow(dashboard: DashboardBuilder): DashboardBuilder {
  return dashboard
    .withRow(new RowBuilder('Drops against the service\'s own normal'))
    .withPanel(
      perMetricShares(
        '$metric: flagged answers, recent vs own baseline',
        'Share of answers at or below the threshold over the change alert\'s long window (solid) and over its baseline, the day before (dashed; absent until 1000 answers: "no baseline yet"). The page fires when both the long and the short window are significantly and materially above the baseline (docs/alerts.md).',
      )
        .withTarget(prom(`max by (service) (ragwatch_change_flagged_share_ratio{${SERIES}, window="recent"})`, '{{service}} recent', 'A'))
        .withTarget(prom(`max by (service) (ragwatch_change_flagged_share_ratio{${SERIES}, window="baseline"})`, '{{service}} baseline', 'B'))
        .overrideByRegexp('.* baseline', [{ id: 'custom.lineStyle', value: { fill: 'dash', dash: [10, 10] } }]),
    )
    .withPanel(
      new timeseries.PanelBuilder()
        .title('Alerts firing, by kind')
        .description('In-process evaluators: change alerts (page: a sudden drop, ticket: a slow drift), SLO burn-rate alerts, threshold alerts — 1 while some judge/service of the metric fires.')
        .height(8)
        .span(16)
        .min(0)
        .withTarget(prom('max by (metric, severity) (ragwatch_change_alert_active{metric=~"$metric"})', 'change {{metric}} {{severity}}', 'A'))
        .withTarget(prom('max by (metric, severity) (ragwatch_slo_alert_active{metric=~"$metric"})', 'burn rate {{metric}} {{severity}}', 'B'))
        .withTarget(prom('max by (metric, severity) (ragwatch_alert_active{metric=~"$metric"})', 'threshold {{metric}} {{severity}}', 'C')),
    )
    .withPanel(
      new stat.PanelBuilder()
        .title('SLO error budget left')
        .description('ragwatch_slo_error_budget_remaining_ratio: the share of the error budget (1 − objective) left over the SLO period, per service (only metrics with alerts.metrics.<metric>.slo).')
        .height(8)
        .span(8)
        .unit('percentunit')
        .withTarget(prom(`min by (metric, service) (ragwatch_slo_error_budget_remaining_ratio{${SERIES}})`, '{{metric}} {{service}}')),
    )
    .withPanel(
      new timeseries.PanelBuilder()
        .title('Conversations with a low answer')
        .description('ragwatch_conversations_flagged_ratio: of the chat conversations judged in metrics.windowMs (those with an exported conversation id), the share with at least one answer below its metric\'s threshold, per service (docs/capture.md, conversations).')
        .height(7)
        .span(24)
        .unit('percentunit')
        .min(0)
        .max(1)
        .withTarget(prom(`max by (service) (ragwatch_conversations_flagged_ratio{${SERVICE}})`, '{{service}}')),
    );
}

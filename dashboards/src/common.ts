/**
 * Shared building blocks of the ragwatch Grafana dashboards: the datasource reference, the
 * template variables (`datasource`, `service`, `route`, `judge`, `metric`, `window`) and small
 * panel factories so every dashboard looks and filters the same way.
 * @module
 */
import type * as common from '@grafana/grafana-foundation-sdk/common';
import {
  DashboardBuilder,
  DashboardCursorSync,
  DashboardLinkBuilder,
  DashboardLinkType,
  DatasourceVariableBuilder,
  QueryVariableBuilder,
  TextBoxVariableBuilder,
  ThresholdsConfigBuilder,
  ThresholdsMode,
  VariableRefresh,
  VariableSort,
  CustomVariableBuilder,
} from '@grafana/grafana-foundation-sdk/dashboard';
import { DataqueryBuilder } from '@grafana/grafana-foundation-sdk/prometheus';
import * as timeseries from '@grafana/grafana-foundation-sdk/timeseries';

/** Every panel queries the Prometheus picked in the `datasource` variable. */
export const DATASOURCE: common.DataSourceRef = { type: 'prometheus', uid: '${datasource}' };

/** Label matchers every ragwatch series that has the label is filtered by (`.*` = All matches series without it). */
export const SERVICE = 'service=~"$service"';
/** Route matcher (`.*` when All, which also matches series without a `route` label). */
export const ROUTE = 'route=~"$route"';
/** Judge kind matcher: LLM and embedded series are never mixed in one aggregate. */
export const JUDGE = 'judge=~"$judge"';

/** Common tags and the links between the three dashboards. */
export const TAG = 'ragwatch';

/** A Prometheus query target. `legend` is the legend format; `refId` defaults to Grafana's A, B, ... */
export function prom(expr: string, legend?: string, refId?: string): DataqueryBuilder {
  const q = new DataqueryBuilder().expr(expr).datasource(DATASOURCE).range();
  if (legend !== undefined) q.legendFormat(legend);
  if (refId !== undefined) q.refId(refId);
  return q;
}

/** An instant Prometheus query target (stat panels, tables). */
export function promInstant(expr: string, legend?: string, refId?: string): DataqueryBuilder {
  const q = new DataqueryBuilder().expr(expr).datasource(DATASOURCE).instant();
  if (legend !== undefined) q.legendFormat(legend);
  if (refId !== undefined) q.refId(refId);
  return q;
}

/** Green below `warn`, orange from `warn`, red from `crit` (for counts of bad things, lag, residuals). */
export function lowerIsBetter(warn: number, crit: number): ThresholdsConfigBuilder {
  return new ThresholdsConfigBuilder().mode(ThresholdsMode.Absolute).steps([
    { value: null, color: 'green' },
    { value: warn, color: 'orange' },
    { value: crit, color: 'red' },
  ]);
}

function labelValues(name: string, label: string, metric: string): QueryVariableBuilder {
  const query = `label_values(${metric}, ${label})`;
  return new QueryVariableBuilder(name)
    .label(label)
    .datasource(DATASOURCE)
    .query({ qryType: 1, query, refId: 'PrometheusVariableQueryEditor-VariableQuery' })
    .definition(query)
    .refresh(VariableRefresh.OnTimeRangeChanged)
    .sort(VariableSort.AlphabeticalAsc);
}

/** Options of {@link ragwatchDashboard}. */
export interface DashboardOptions {
  uid: string;
  title: string;
  description: string;
  /** Add the `judge`, `metric` and `window` variables (quality dashboard). */
  qualityVariables?: boolean;
}

/**
 * A dashboard with the shared variables, tags, time range and the links to the other ragwatch
 * dashboards and to ragwatch's examples page.
 */
export function ragwatchDashboard(options: DashboardOptions): DashboardBuilder {
  const dash = new DashboardBuilder(options.title)
    .uid(options.uid)
    .description(options.description)
    .tags([TAG])
    .editable()
    .tooltip(DashboardCursorSync.Crosshair)
    .refresh('30s')
    .time({ from: 'now-3h', to: 'now' })
    .withVariable(new DatasourceVariableBuilder('datasource').label('Prometheus').type('prometheus'))
    .withVariable(labelValues('service', 'service', 'ragwatch_response_duration_seconds_count').multi(true).includeAll(true).allValue('.*'))
    .withVariable(labelValues('route', 'route', 'ragwatch_response_duration_seconds_count').multi(true).includeAll(true).allValue('.*'))
    .withVariable(
      new TextBoxVariableBuilder('ragwatch_url')
        .label('ragwatch URL')
        .description('Base URL of a ragwatch scorer (or all-in-one) HTTP port, for the examples page link.')
        .defaultValue('http://localhost:9464'),
    )
    .link(new DashboardLinkBuilder('ragwatch').type(DashboardLinkType.Dashboards).tags([TAG]).asDropdown(true).includeVars(true).keepTime(true))
    .link(new DashboardLinkBuilder('Worst recent answers').type(DashboardLinkType.Link).url('${ragwatch_url}/examples').targetBlank(true).icon('doc'));
  if (options.qualityVariables) {
    dash
      .withVariable(labelValues('judge', 'judge', 'ragwatch_score_ratio_count').multi(false).includeAll(true).allValue('.*'))
      .withVariable(labelValues('metric', 'metric', `ragwatch_score_ratio_count{${JUDGE}}`).multi(true).includeAll(true).allValue('.+'))
      .withVariable(
        new CustomVariableBuilder('window')
          .label('window')
          .description('Window of the weighted mean; match alerts.metrics.<metric>.window (default 30m).')
          .values('30m,5m,15m,1h,6h')
          .current({ text: '30m', value: '30m' }),
      );
  }
  return dash;
}

/** A full-width time series of shares (0–1), repeated per selected `metric`, three to a row. */
export function perMetricShares(title: string, description: string): timeseries.PanelBuilder {
  return new timeseries.PanelBuilder().title(title).description(description).repeat('metric').repeatDirection('h').maxPerRow(3).height(8).span(24).unit('percentunit').min(0);
}

/**
 * Every ragwatch dashboard, by output file name. `npm run dashboards:build` writes each one to
 * `dashboards/<file>` and to the Helm chart (`helm/ragwatch/files/dashboards/<file>`).
 * @module
 */
import type { Dashboard } from '@grafana/grafana-foundation-sdk/dashboard';
import { DATASOURCE } from './common.ts';
import { evaluatorsDashboard } from './evaluators.ts';
import { latencyDashboard } from './latency.ts';
import { pipelineDashboard } from './pipeline.ts';
import { qualityDashboard } from './quality.ts';

/** One dashboard and the JSON file it is written to. */
export interface DashboardDefinition {
  file: string;
  build: () => Dashboard;
}

/** Sets the `datasource` variable on every panel (the SDK sets it on targets only), so switching it switches every panel. */
function withPanelDatasource(dashboard: Dashboard): Dashboard {
  for (const panel of dashboard.panels ?? []) if (panel.type !== 'row') (panel as { datasource?: unknown }).datasource = DATASOURCE;
  return dashboard;
}

/** The dashboards: quality, latency, pipeline health (issue 7), and the configured evaluators (issue 45). */
export const DASHBOARDS: readonly DashboardDefinition[] = [
  { file: 'ragwatch-quality.json', build: () => withPanelDatasource(qualityDashboard().build()) },
  { file: 'ragwatch-latency.json', build: () => withPanelDatasource(latencyDashboard().build()) },
  { file: 'ragwatch-pipeline.json', build: () => withPanelDatasource(pipelineDashboard().build()) },
  { file: 'ragwatch-evaluators.json', build: () => withPanelDatasource(evaluatorsDashboard().build()) },
];

/** Serialises a dashboard the way it is committed (2-space JSON, trailing newline). */
export function dashboardJson(dashboard: Dashboard): string {
  return `${JSON.stringify(dashboard, null, 2)}\n`;
}

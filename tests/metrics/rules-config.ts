/** The customised alert configuration the rule tests share (unit and promtool layers). */
import { loadConfig } from '../../src/config/load.ts';
import type { RagwatchConfig } from '../../src/config/schema.ts';

/** Defaults plus a groundedness page alert with a runbook, and the coverage metrics not alerting. */
export function config(alerts: Record<string, unknown> = {}): RagwatchConfig {
  return loadConfig({
    env: {},
    overrides: {
      alerts: {
        examplesUrl: 'https://ragwatch.example/',
        metrics: {
          groundedness: { threshold: 0.8, window: '30m', minSamples: 20, for: '10m', severity: 'page', runbookUrl: 'https://runbooks.example/groundedness' },
          source_query_coverage: { threshold: 0.6, alert: false },
          response_query_coverage: { threshold: 0.6, alert: false },
        },
        ...alerts,
      },
    },
  });
}

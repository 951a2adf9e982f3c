/**
 * Prometheus alerting rules of the probes, the same for every deployment: each suite's thresholds and
 * severity are exported as series (`ragwatch_probe_min_accuracy_ratio`, `ragwatch_probe_suite_info`,
 * …), so the rules need no suite list and the chart's PrometheusRule covers suites added later.
 * Semantics match the in-process evaluator ({@link ProbeAlerts}).
 * @module
 */
import type { RuleGroup } from '../metrics/rules.ts';
import { STALE_PERIODS, type ProbeAlertName } from './alerts.ts';

/** Multiplying by the info series (value 1) adds the suite's severity label and keeps the value. */
const SEVERITY = ' * on (suite) group_left (severity) max by (suite, severity) (ragwatch_probe_suite_info)';

/** The probe alert group (`interval` from `alerts.ruleInterval`). */
export function probeRuleGroup(interval: string, examplesUrl: string): RuleGroup {
  const rule = (alert: ProbeAlertName, expr: string, summary: string, description: string) => ({
    alert,
    expr: `(${expr})${SEVERITY}`,
    annotations: { summary, description, value: '{{ $value | printf "%.3f" }}', report: `${examplesUrl}/api/status` },
  });
  return {
    name: 'ragwatch-probe-alerts',
    interval,
    rules: [
      rule(
        'RagwatchProbeAccuracyLow',
        'max by (suite) (ragwatch_probe_accuracy_ratio) < on (suite) max by (suite) (ragwatch_probe_min_accuracy_ratio)',
        'probe accuracy {{ $value | printf "%.2f" }} below the minimum for suite {{ $labels.suite }}',
        'The last completed probe run of suite {{ $labels.suite }} answered {{ $value | humanizePercentage }} of its answered ground-truth questions correctly, below the suite\'s alerts.minAccuracy. Ground truth, not a judge: the service no longer knows what it knew. See ragwatch_probe_failures_total for retrieval vs generator.',
      ),
      rule(
        'RagwatchProbeRobustnessLow',
        'max by (suite) (ragwatch_probe_robustness_ratio) < on (suite) max by (suite) (ragwatch_probe_min_robustness_ratio)',
        'probe robustness R {{ $value | printf "%.2f" }} below the minimum for suite {{ $labels.suite }}',
        'Among the questions suite {{ $labels.suite }} can answer in some wording, only {{ $value | humanizePercentage }} are answered in every wording (GRAMMAR robustness R), below alerts.minRobustness.',
      ),
      rule(
        'RagwatchProbeErrorsHigh',
        'max by (suite) (ragwatch_probe_error_ratio) > on (suite) max by (suite) (ragwatch_probe_max_error_ratio)',
        'probes of suite {{ $labels.suite }} get no answer ({{ $value | humanizePercentage }})',
        'The service did not answer {{ $value | humanizePercentage }} of the probe queries of suite {{ $labels.suite }} (timeouts, HTTP errors, no answer at answerPath), above alerts.maxErrorRatio. These are not counted as wrong answers.',
      ),
      rule(
        'RagwatchProbeStale',
        `time() - max by (suite) (ragwatch_probe_last_run_timestamp_seconds or ragwatch_probe_scheduled_since_timestamp_seconds) > on (suite) ${STALE_PERIODS} * max by (suite) (ragwatch_probe_schedule_seconds)`,
        'no probe run of suite {{ $labels.suite }} completed for {{ $value | humanizeDuration }}',
        `No probe run of suite {{ $labels.suite }} completed for ${STALE_PERIODS} schedule periods: the prober is stuck, failing (ragwatch_probe_runs_total{status="failed"}) or its runs overlap.`,
      ),
    ],
  };
}

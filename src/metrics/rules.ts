/**
 * Generates the Prometheus recording and alerting rules from the configuration (`ragwatch rules`,
 * the Helm chart's PrometheusRule). Same semantics as the in-process evaluator: the weighted mean
 * over the metric's window is below its threshold AND at least `minSamples` judged samples fell in
 * the window, held for `for:`.
 * @module
 */
import type { RagwatchConfig } from '../config/schema.ts';
import { DIAGNOSIS_PATTERNS, type DiagnosisPattern } from './diagnosis.ts';

/** Name of the weighted score histogram. */
export const SCORE_METRIC = 'ragwatch_score_ratio';
/** Name of the unweighted judged-sample counter (the minimum-sample guard). */
export const SAMPLES_METRIC = 'ragwatch_score_samples_total';
const BY = 'metric, judge, service';

/** A rule group as Prometheus (and prometheus-operator's PrometheusRule `spec.groups`) expects it. */
export interface RuleGroup {
  name: string;
  interval?: string;
  rules: Array<Record<string, unknown>>;
}

/** Recording rule holding the windowed weighted mean of every metric. */
export function meanRecordName(window: string): string {
  return `ragwatch:score_ratio:mean_rate${window}`;
}

/** Recording rule holding the windowed weighted mean of the calibrated P(good) (alerts `on: calibrated`). */
export function calibratedRecordName(window: string): string {
  return `ragwatch:score_calibrated:mean_rate${window}`;
}

/** Recording rule holding the judged-sample count in the window of every metric. */
export function samplesRecordName(window: string): string {
  return `ragwatch:score_samples:increase${window}`;
}

/** `RagwatchGroundednessLow` for `groundedness`. */
export function alertName(metric: string): string {
  return metricAlertName(metric, 'Low');
}

/** `Ragwatch<Metric><suffix>`: every per-metric alert's name (threshold `Low`, change `Drop`/`Drift`, SLO `BudgetBurn`). */
export function metricAlertName(metric: string, suffix: string): string {
  const pascal = metric
    .split('_')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
  return `Ragwatch${pascal}${suffix}`;
}

function fmt(n: number): string {
  return String(Number(n.toFixed(6)));
}

/** The examples page base URL linked from annotations. */
export function examplesBaseUrl(config: RagwatchConfig): string {
  return (config.alerts.examplesUrl ?? `http://${config.server.host}:${config.server.httpPort}`).replace(/\/+$/, '');
}

/** A Go-template query printing the value of `selector` (scoped to the alert's judge and service) with 2 decimals. */
function valueOf(record: string, metric: string, format: string): string {
  return `{{ with printf \`${record}{metric="${metric}",judge=%q,service=%q}\` $labels.judge $labels.service | query }}{{ . | first | value | printf "${format}" }}{{ end }}`;
}

function patternTemplate(pattern: DiagnosisPattern, window: string, thresholds: Readonly<Record<string, number>>): string | undefined {
  if (pattern.conditions.some((cond) => thresholds[cond.metric] === undefined)) return undefined;
  const mean = meanRecordName(window);
  const expr = pattern.conditions
    .map((cond) => `${mean}{metric="${cond.metric}",judge=%[1]q,service=%[2]q} ${cond.level === 'low' ? '<' : '>='} ${fmt(thresholds[cond.metric]!)}`)
    .join(' and on (judge, service) ');
  const parts = pattern.conditions.map((cond) => `${cond.says} (${cond.abbrev} ${valueOf(mean, cond.metric, '%.2f')})`);
  return (
    `{{ with printf \`${expr}\` $labels.judge $labels.service | query }}{{ if $found }}; {{ end }}{{ $found = true }}` +
    `likely component: ${pattern.componentText} — ${parts.join(' and ')}{{ end }}`
  );
}

/** Go template of the `diagnosis` annotation: THELMA's table evaluated on the recorded means of the alert's window. */
export function diagnosisTemplate(window: string, thresholds: Readonly<Record<string, number>>): string {
  const patterns = DIAGNOSIS_PATTERNS.map((p) => patternTemplate(p, window, thresholds)).filter((t): t is string => t !== undefined);
  return `{{ $found := false }}${patterns.join('')}{{ if not $found }}no diagnosis: the component metrics are within their thresholds or not measured{{ end }}`;
}

/**
 * Prometheus rules for every metric in `config.alerts.metrics`: one recording group (windowed
 * weighted mean and sample count per distinct window, for all metrics) and one alerting group
 * (metrics with `alert: true`). The capabilities' groups are composed beside these at the top
 * (`roles/rules.ts`).
 */
export function qualityRuleGroups(config: RagwatchConfig): RuleGroup[] {
  const { alerts } = config;
  const entries = Object.entries(alerts.metrics).sort(([a], [b]) => a.localeCompare(b));
  const thresholds: Record<string, number> = Object.fromEntries(entries.map(([m, a]) => [m, a.threshold]));
  const windows = [...new Set(entries.filter(([, a]) => a.alert).map(([, a]) => a.window))].sort();
  const recording: Array<Record<string, unknown>> = [];
  for (const window of windows) {
    recording.push({
      record: meanRecordName(window),
      expr: `sum by (${BY}) (rate(${SCORE_METRIC}_sum[${window}]))\n/\nsum by (${BY}) (rate(${SCORE_METRIC}_count[${window}]))`,
    });
    recording.push({ record: samplesRecordName(window), expr: `sum by (${BY}) (increase(${SAMPLES_METRIC}[${window}]))` });
  }
  for (const window of [...new Set(entries.filter(([, a]) => a.alert && a.on === 'calibrated').map(([, a]) => a.window))].sort()) {
    recording.push({
      record: calibratedRecordName(window),
      expr: `sum by (${BY}) (rate(ragwatch_score_calibrated_ratio_sum[${window}]))\n/\nsum by (${BY}) (rate(ragwatch_score_calibrated_ratio_count[${window}]))`,
    });
  }
  const examples = examplesBaseUrl(config);
  const alerting: Array<Record<string, unknown>> = [];
  for (const [metric, a] of entries) {
    if (!a.alert) continue;
    const threshold = fmt(a.threshold);
    const keep = a.keepFiringFor ?? alerts.keepFiringFor;
    const samples = valueOf(samplesRecordName(a.window), metric, '%.0f');
    const calibrated = a.on === 'calibrated';
    const what = calibrated ? `${metric} (calibrated P(good))` : metric;
    const annotations: Record<string, string> = {
      summary: `${what} {{ $value | printf "%.2f" }} < ${threshold} over ${a.window} (n=${samples}) for {{ $labels.service }}`,
      description:
        `The ${a.window} weighted mean of ${what} ({{ $labels.judge }} judge) for service {{ $labels.service }} is ` +
        `{{ $value | printf "%.3f" }}, below the threshold ${threshold}, over ${samples} judged samples (minimum ${a.minSamples}).`,
      value: '{{ $value | printf "%.3f" }}',
      samples,
      diagnosis: diagnosisTemplate(a.window, thresholds),
      examples: `${examples}/examples?metric=${metric}&below=${threshold}&service={{ $labels.service | urlquery }}`,
    };
    if (a.runbookUrl) annotations.runbook_url = a.runbookUrl;
    const rule: Record<string, unknown> = {
      alert: alertName(metric),
      expr: `${(calibrated ? calibratedRecordName : meanRecordName)(a.window)}{metric="${metric}"} < ${threshold}\nand on (${BY})\n${samplesRecordName(a.window)}{metric="${metric}"} >= ${a.minSamples}`,
      for: a.for,
    };
    if (keep !== '0s') rule.keep_firing_for = keep;
    rule.labels = { severity: a.severity };
    rule.annotations = annotations;
    alerting.push(rule);
  }
  const groups: RuleGroup[] = [];
  if (recording.length > 0) groups.push({ name: 'ragwatch-quality-recording', interval: alerts.ruleInterval, rules: recording });
  if (alerting.length > 0) groups.push({ name: 'ragwatch-quality-alerts', interval: alerts.ruleInterval, rules: alerting });
  return groups;
}

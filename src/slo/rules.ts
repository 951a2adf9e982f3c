/**
 * Quality SLOs as Prometheus rules, the shape Sloth and Pyrra generate: the bad share per burn window
 * (from the histogram bucket at each metric's threshold), then one alert per metric and severity
 * (page: 14.4× over 1h and 5m, or 6× over 6h and 30m; ticket: 1× over 3d and 6h), and the error budget
 * left over the SLO period.
 * @module
 */
import type { RagwatchConfig } from '../config/schema.ts';
import { requireDurationMs } from '../metrics/duration.ts';
import { metricAlertName, type RuleGroup } from '../metrics/rules.ts';
import { BURN_WINDOWS, type SloRule } from './types.ts';

const BY = 'metric, judge, service';

/** The SLO alert of `metric` (`RagwatchGroundednessBudgetBurn`); its severity is a label. */
export function sloAlertName(metric: string): string {
  return metricAlertName(metric, 'BudgetBurn');
}

/** The metrics with an SLO (`alerts.metrics.<metric>.slo`). */
export function sloRulesFromConfig(alerts: RagwatchConfig['alerts']): SloRule[] {
  return Object.entries(alerts.metrics)
    .flatMap(([metric, a]) => (a.slo ? [{ metric, cut: a.threshold, objective: a.slo.objective, period: a.slo.period, periodMs: requireDurationMs(a.slo.period), minSamples: a.minSamples }] : []))
    .sort((a, b) => a.metric.localeCompare(b.metric));
}

/** Name of a recorded bad share (`ragwatch:slo_bad_ratio:1h`) or sample count (`ragwatch:slo_samples:1h`). */
export function sloRecordName(window: string, what: 'bad_ratio' | 'samples' = 'bad_ratio'): string {
  return `ragwatch:slo_${what}:${window}`;
}

/** The recording and alerting groups of the SLOs; none without one. */
export function sloRuleGroups(config: RagwatchConfig, examplesUrl: string): RuleGroup[] {
  const rules = sloRulesFromConfig(config.alerts);
  if (rules.length === 0) return [];
  const metrics = rules.map((r) => r.metric).join('|');
  const windows = [...new Set([...BURN_WINDOWS.flatMap((w) => [w.long, w.short]), ...rules.map((r) => r.period)])];
  const badShare = (range: string) =>
    `(\n${rules.map((r) => `sum by (${BY}) (increase(ragwatch_score_ratio_bucket{metric="${r.metric}",le="${r.cut}"}[${range}]))`).join('\nor\n')}\n)\n/\n(sum by (${BY}) (increase(ragwatch_score_ratio_count{metric=~"${metrics}"}[${range}])) > 0)`;
  const recording: Array<Record<string, unknown>> = windows.map((w) => ({ record: sloRecordName(w), expr: badShare(w) }));
  for (const w of new Set(BURN_WINDOWS.map((b) => b.long))) recording.push({ record: sloRecordName(w, 'samples'), expr: `sum by (${BY}) (increase(ragwatch_score_samples_total{metric=~"${metrics}"}[${w}]))` });
  for (const r of rules) recording.push({ record: 'ragwatch:slo_error_budget_remaining:ratio', expr: `1 - ${sloRecordName(r.period)}{metric="${r.metric}"} / ${fmt(1 - r.objective)}`, labels: { period: r.period } });
  const alerting: Array<Record<string, unknown>> = [];
  for (const r of rules) {
    const budget = 1 - r.objective;
    for (const severity of ['page', 'ticket'] as const) {
      const pairs = BURN_WINDOWS.filter((w) => w.severity === severity).map((w) => `(\n${sloRecordName(w.long)}{metric="${r.metric}"} > ${fmt(w.burnRate * budget)}\nand\n${sloRecordName(w.short)}{metric="${r.metric}"} > ${fmt(w.burnRate * budget)}\nand\n${sloRecordName(w.long, 'samples')}{metric="${r.metric}"} >= ${r.minSamples}\n)`);
      const rule: Record<string, unknown> = { alert: sloAlertName(r.metric), expr: pairs.join('\nor\n') };
      if (config.alerts.keepFiringFor !== '0s') rule.keep_firing_for = config.alerts.keepFiringFor;
      rule.labels = { severity, kind: 'burn_rate' };
      rule.annotations = {
        summary: `${r.metric}: {{ $value | humanizePercentage }} of answers at or below ${r.cut} for {{ $labels.service }} burns the ${r.period} error budget of the ${fmt(r.objective * 100)} % SLO ${severity === 'page' ? 'fast' : 'steadily'}`,
        description: `Objective: ${fmt(r.objective * 100)} % of ${r.metric} answers above ${r.cut} over ${r.period} (budget ${fmt(budget * 100)} %). ${severity === 'page' ? 'Burn rate over 14.4× for 1h and 5m, or over 6× for 6h and 30m' : 'Burn rate over 1× for 3d and 6h'} (Google SRE workbook, multiwindow multi-burn-rate alerts).`,
        value: '{{ $value | humanizePercentage }}',
        examples: `${examplesUrl}/examples?metric=${r.metric}&below=${r.cut}&service={{ $labels.service | urlquery }}`,
      };
      alerting.push(rule);
    }
  }
  return [
    { name: 'ragwatch-slo-recording', interval: config.alerts.ruleInterval, rules: recording },
    { name: 'ragwatch-slo-alerts', interval: config.alerts.ruleInterval, rules: alerting },
  ];
}

/** A number as PromQL and a person read it (no float noise). */
function fmt(n: number): string {
  return String(Number(n.toPrecision(10)));
}

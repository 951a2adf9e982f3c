/**
 * The change alerts as Prometheus rules, with the in-process monitor's semantics (`statistic.ts`):
 * recording rules for the weighted flagged counts (the histogram bucket at each metric's threshold),
 * weights, squared weights and samples over the long and short recent windows and the baseline (offset
 * by the long window), the shares and z of each window, then one alert per metric.
 * @module
 */
import type { RagwatchConfig } from '../config/schema.ts';
import { requireDurationMs } from '../metrics/duration.ts';
import type { RuleGroup } from '../metrics/rules.ts';
import type { ChangeRule, ChangeSettings } from './types.ts';

const BY = 'metric, judge, service';
const SCORE = 'ragwatch_score_ratio';

/** The change alert of `metric` (`RagwatchGroundednessDrop`). */
export function changeAlertName(metric: string): string {
  return `Ragwatch${metric.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase())}Drop`;
}

/** The metrics with a change alert and the resolved settings: `change: true`, or unset on a page-severity metric with an alert. */
export function changeRulesFromConfig(alerts: RagwatchConfig['alerts']): { rules: ChangeRule[]; settings: ChangeSettings } {
  const c = alerts.change;
  const rules = Object.entries(alerts.metrics)
    .filter(([, a]) => a.change ?? (a.alert && a.severity === 'page'))
    .map(([metric, a]) => ({ metric, cut: a.threshold }))
    .sort((a, b) => a.metric.localeCompare(b.metric));
  return {
    rules,
    settings: {
      windowMs: requireDurationMs(c.window),
      shortWindowMs: requireDurationMs(c.shortWindow),
      baselineMs: requireDurationMs(c.baseline),
      minBaselineSamples: c.minBaselineSamples,
      minSamples: c.minSamples,
      z: c.z,
      minRatio: c.minRatio,
      minIncrease: c.minIncrease,
      severity: c.severity,
      keepFiringForMs: requireDurationMs(alerts.keepFiringFor),
    },
  };
}

/** Name of a recorded change series (`ragwatch:change_z:30m`, `ragwatch:change_samples:baseline`). */
export function changeRecordName(what: 'flagged' | 'weight' | 'weight_squares' | 'samples' | 'share' | 'z', window: string): string {
  return `ragwatch:change_${what}:${window}`;
}

/** The recording and alerting groups of the change alerts; none when no metric has one. */
export function changeRuleGroups(config: RagwatchConfig, examplesUrl: string): RuleGroup[] {
  const { rules, settings } = changeRulesFromConfig(config.alerts);
  if (rules.length === 0) return [];
  const c = config.alerts.change;
  const metrics = rules.map((r) => r.metric).join('|');
  // Each window: [range] and the offset that ends it (the baseline ends where the long window starts).
  const windows: Array<{ tag: string; range: string; offset?: string }> = [
    { tag: c.window, range: c.window },
    { tag: c.shortWindow, range: c.shortWindow },
    { tag: 'baseline', range: c.baseline, offset: c.window },
  ];
  const inc = (series: string, w: (typeof windows)[number]) => `increase(${series}[${w.range}]${w.offset ? ` offset ${w.offset}` : ''})`;
  const recording: Array<Record<string, unknown>> = [];
  for (const w of windows) {
    recording.push({ record: changeRecordName('flagged', w.tag), expr: rules.map((r) => `sum by (${BY}) (${inc(`${SCORE}_bucket{metric="${r.metric}",le="${r.cut}"}`, w)})`).join('\nor\n') });
    recording.push({ record: changeRecordName('weight', w.tag), expr: `sum by (${BY}) (${inc(`${SCORE}_count{metric=~"${metrics}"}`, w)})` });
    recording.push({ record: changeRecordName('weight_squares', w.tag), expr: `sum by (${BY}) (${inc(`ragwatch_score_weight_squares_total{metric=~"${metrics}"}`, w)})` });
    recording.push({ record: changeRecordName('samples', w.tag), expr: `sum by (${BY}) (${inc(`ragwatch_score_samples_total{metric=~"${metrics}"}`, w)})` });
  }
  // Laplace-smoothed baseline share, so an all-good baseline still has a variance.
  const pb = changeRecordName('share', 'baseline');
  recording.push({ record: pb, expr: `(${changeRecordName('flagged', 'baseline')} + 1)\n/\n(${changeRecordName('weight', 'baseline')} + 2)` });
  for (const w of windows.slice(0, 2)) {
    const share = changeRecordName('share', w.tag);
    recording.push({ record: share, expr: `${changeRecordName('flagged', w.tag)}\n/\n(${changeRecordName('weight', w.tag)} > 0)` });
    // 1/n_eff = Σw² / (Σw)² for the recent window and the baseline.
    recording.push({
      record: changeRecordName('z', w.tag),
      expr:
        `(${share} - ${pb})\n/\nsqrt(${pb} * (1 - ${pb}) * (` +
        `${changeRecordName('weight_squares', w.tag)} / ${changeRecordName('weight', w.tag)} ^ 2 + ` +
        `${changeRecordName('weight_squares', 'baseline')} / ${changeRecordName('weight', 'baseline')} ^ 2))`,
    });
  }
  const drop = (tag: string, metric: string) => {
    const share = `${changeRecordName('share', tag)}{metric="${metric}"}`;
    return [`${changeRecordName('z', tag)}{metric="${metric}"} >= ${settings.z}`, `${share} >= ${settings.minRatio} * ${pb}`, `${share} - ${pb} >= ${settings.minIncrease}`];
  };
  const alerting = rules.map((r) => {
    const expr = [
      ...drop(c.window, r.metric),
      ...drop(c.shortWindow, r.metric),
      `${changeRecordName('samples', 'baseline')}{metric="${r.metric}"} >= ${settings.minBaselineSamples}`,
      `${changeRecordName('samples', c.window)}{metric="${r.metric}"} >= ${settings.minSamples}`,
    ].join('\nand\n');
    const rule: Record<string, unknown> = { alert: changeAlertName(r.metric), expr };
    if (config.alerts.keepFiringFor !== '0s') rule.keep_firing_for = config.alerts.keepFiringFor;
    rule.labels = { severity: settings.severity, kind: 'change' };
    rule.annotations = {
      summary: `${r.metric}: answers at or below ${r.cut} rose against their own baseline for {{ $labels.service }} (z={{ $value | printf "%.1f" }} over ${c.window})`,
      description:
        `The share of ${r.metric} answers ({{ $labels.judge }} judge) at or below ${r.cut} over the last ${c.window} and ${c.shortWindow} is significantly ` +
        `(z ≥ ${settings.z}) and materially (≥ ${settings.minRatio}× and ≥ +${settings.minIncrease}) above the same series' share over the ${c.baseline} before (docs/alerts.md).`,
      value: '{{ $value | printf "%.1f" }}',
      examples: `${examplesUrl}/examples?metric=${r.metric}&below=${r.cut}&service={{ $labels.service | urlquery }}`,
    };
    return rule;
  });
  return [
    { name: 'ragwatch-change-recording', interval: config.alerts.ruleInterval, rules: recording },
    { name: 'ragwatch-change-alerts', interval: config.alerts.ruleInterval, rules: alerting },
  ];
}

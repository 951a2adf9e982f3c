/**
 * The change alerts as Prometheus rules, with the in-process monitor's semantics (`statistic.ts`):
 * recording rules for the weighted flagged counts (the histogram bucket at each metric's threshold),
 * weights, squared weights and samples over the long and short recent windows and the baseline (offset
 * by the long window), the shares and z of each window, then one alert per metric.
 * @module
 */
import type { RagwatchConfig } from '../config/schema.ts';
import { changeTiersFromConfig } from '../metrics/change-tiers.ts';
import { flagRulesFromConfig } from '../metrics/flag-rules.ts';
import { metricAlertName, type RuleGroup } from '../metrics/rules.ts';
import type { ChangeRule, ChangeSettings } from './types.ts';

const BY = 'metric, judge, service';
const SCORE = 'ragwatch_score_ratio';

/** The change alert of `metric` in `tier`: `RagwatchGroundednessDrop` (page), `RagwatchGroundednessDrift` (ticket). */
export function changeAlertName(metric: string, tier: ChangeSettings['tier'] = 'page'): string {
  return metricAlertName(metric, tier === 'page' ? 'Drop' : 'Drift');
}

/** The metrics with a change alert and each enabled tier's settings: `change: true`, or unset on a page-severity metric with an alert. */
export function changeRulesFromConfig(alerts: RagwatchConfig['alerts']): { rules: ChangeRule[]; tiers: ChangeSettings[] } {
  return { rules: flagRulesFromConfig(alerts), tiers: changeTiersFromConfig(alerts) };
}

/** Name of a recorded change series (`ragwatch:change_z:page_long`, `ragwatch:change_samples:ticket_baseline`). */
export function changeRecordName(what: 'flagged' | 'weight' | 'weight_squares' | 'samples' | 'share' | 'share_high' | 'z', tier: string, window: 'long' | 'short' | 'baseline'): string {
  return `ragwatch:change_${what}:${tier}_${window}`;
}

/** The recording and alerting groups of the change alerts, per enabled tier; none when no metric has one. */
export function changeRuleGroups(config: RagwatchConfig, examplesUrl: string): RuleGroup[] {
  const { rules, tiers } = changeRulesFromConfig(config.alerts);
  if (rules.length === 0 || tiers.length === 0) return [];
  const c = config.alerts.change;
  const metrics = rules.map((r) => r.metric).join('|');
  const recording: Array<Record<string, unknown>> = [];
  const alerting: Array<Record<string, unknown>> = [];
  for (const settings of tiers) {
    const { tier } = settings;
    const t = c[tier];
    const name = (what: Parameters<typeof changeRecordName>[0], w: 'long' | 'short' | 'baseline') => changeRecordName(what, tier, w);
    // Each window's range, and the offset that ends it (the baseline ends where the long window starts).
    const windows = [
      { w: 'long' as const, range: t.window, offset: undefined },
      { w: 'short' as const, range: t.shortWindow, offset: undefined },
      { w: 'baseline' as const, range: t.baseline, offset: t.window },
    ];
    for (const { w, range, offset } of windows) {
      const inc = (series: string) => `increase(${series}[${range}]${offset ? ` offset ${offset}` : ''})`;
      // Raw: the bucket at the threshold. Calibrated: Σw·P(bad) = the calibrated weights minus Σw·P(good).
      const flagged = (r: ChangeRule) =>
        r.on === 'calibrated'
          ? `(sum by (${BY}) (${inc(`ragwatch_score_calibrated_ratio_count{metric="${r.metric}"}`)}) - sum by (${BY}) (${inc(`ragwatch_score_calibrated_ratio_sum{metric="${r.metric}"}`)}))`
          : `sum by (${BY}) (${inc(`${SCORE}_bucket{metric="${r.metric}",le="${r.cut}"}`)})`;
      recording.push({ record: name('flagged', w), expr: rules.map(flagged).join('\nor\n') });
      recording.push({ record: name('weight', w), expr: `sum by (${BY}) (${inc(`${SCORE}_count{metric=~"${metrics}"}`)})` });
      recording.push({ record: name('weight_squares', w), expr: `sum by (${BY}) (${inc(`ragwatch_score_weight_squares_total{metric=~"${metrics}"}`)})` });
      recording.push({ record: name('samples', w), expr: `sum by (${BY}) (${inc(`ragwatch_score_samples_total{metric=~"${metrics}"}`)})` });
    }
    // Laplace-smoothed baseline share, so an all-good baseline still has a variance.
    const pb = name('share', 'baseline');
    recording.push({ record: pb, expr: `(${name('flagged', 'baseline')} + 1)\n/\n(${name('weight', 'baseline')} + 2)` });
    // Two standard errors above the baseline share (n_eff = (Σw)²/Σw²): the minimum effect is measured from here.
    const high = name('share_high', 'baseline');
    recording.push({ record: high, expr: `${pb} + 2 * sqrt(${pb} * (1 - ${pb}) * ${name('weight_squares', 'baseline')} / ${name('weight', 'baseline')} ^ 2)` });
    for (const w of ['long', 'short'] as const) {
      const share = name('share', w);
      recording.push({ record: share, expr: `${name('flagged', w)}\n/\n(${name('weight', w)} > 0)` });
      // 1/n_eff = Σw² / (Σw)² for the recent window and the baseline.
      recording.push({
        record: name('z', w),
        expr: `(${share} - ${pb})\n/\nsqrt(${pb} * (1 - ${pb}) * (${name('weight_squares', w)} / ${name('weight', w)} ^ 2 + ${name('weight_squares', 'baseline')} / ${name('weight', 'baseline')} ^ 2))`,
      });
    }
    const drop = (w: 'long' | 'short', metric: string) => {
      const share = `${name('share', w)}{metric="${metric}"}`;
      return [`${name('z', w)}{metric="${metric}"} >= ${settings.z}`, `${share} >= ${settings.minRatio} * ${high}`, `${share} - ${high} >= ${settings.minIncrease}`];
    };
    for (const r of rules) {
      const expr = [...drop('long', r.metric), ...drop('short', r.metric), `${name('samples', 'baseline')}{metric="${r.metric}"} >= ${settings.minBaselineSamples}`, `${name('samples', 'long')}{metric="${r.metric}"} >= ${settings.minSamples}`].join('\nand\n');
      const rule: Record<string, unknown> = { alert: changeAlertName(r.metric, tier), expr };
      if (config.alerts.keepFiringFor !== '0s') rule.keep_firing_for = config.alerts.keepFiringFor;
      rule.labels = { severity: tier, kind: 'change' };
      rule.annotations = {
        summary: `${r.metric}: answers at or below ${r.cut} rose against their own ${t.baseline} baseline for {{ $labels.service }} (z={{ $value | printf "%.1f" }} over ${t.window})`,
        description:
          `The share of ${r.metric} answers ({{ $labels.judge }} judge) at or below ${r.cut} over the last ${t.window} and ${t.shortWindow} is significantly ` +
          `(z ≥ ${settings.z}) and materially (≥ ${settings.minRatio}× and ≥ +${settings.minIncrease}) above the same series' share over the ${t.baseline} before (docs/alerts.md).`,
        value: '{{ $value | printf "%.1f" }}',
        examples: `${examplesUrl}/examples?metric=${r.metric}&below=${r.cut}&service={{ $labels.service | urlquery }}`,
      };
      alerting.push(rule);
    }
  }
  return [
    { name: 'ragwatch-change-recording', interval: config.alerts.ruleInterval, rules: recording },
    { name: 'ragwatch-change-alerts', interval: config.alerts.ruleInterval, rules: alerting },
  ];
}

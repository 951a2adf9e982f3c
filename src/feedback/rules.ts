/**
 * The alert on a rise of the negative feedback share as Prometheus rules, with the in-process
 * monitor's semantics (the change alerts' test: a one-sided two-proportion z of the recent share
 * against the service's own trailing baseline, Laplace-smoothed, plus a minimum effect measured from
 * two standard errors above the baseline), from `ragwatch_feedback_total` — each item weighs 1, so the
 * effective sizes are the counts. One recording group and one alert group per enabled tier.
 * @module
 */
import type { RagwatchConfig } from '../config/schema.ts';
import { changeTiersFromConfig } from '../metrics/change-tiers.ts';
import type { RuleGroup } from '../metrics/rules.ts';
import { feedbackAlertName, type FeedbackTier } from './monitor.ts';

const TOTAL = 'ragwatch_feedback_total';

/** The enabled tiers of the change alerts, with the feedback alert's own sample minimums; none when the alert is off. */
export function feedbackTiersFromConfig(config: RagwatchConfig): FeedbackTier[] {
  const f = config.feedback;
  if (!f.enabled || !f.alert.enabled) return [];
  return changeTiersFromConfig(config.alerts, f.alert);
}

/** Name of a recorded feedback series (`ragwatch:feedback_share:page_long`). */
export function feedbackRecordName(what: 'negative' | 'total' | 'share' | 'share_high' | 'z', tier: string, window: 'long' | 'short' | 'baseline'): string {
  return `ragwatch:feedback_${what}:${tier}_${window}`;
}

/** The recording and alerting groups; none when the alert is off. */
export function feedbackRuleGroups(config: RagwatchConfig): RuleGroup[] {
  const tiers = feedbackTiersFromConfig(config);
  if (tiers.length === 0) return [];
  const c = config.alerts.change;
  const recording: Array<Record<string, unknown>> = [];
  const alerting: Array<Record<string, unknown>> = [];
  for (const t of tiers) {
    const name = (what: Parameters<typeof feedbackRecordName>[0], w: 'long' | 'short' | 'baseline') => feedbackRecordName(what, t.tier, w);
    const cfg = c[t.tier];
    for (const { w, range, offset } of [
      { w: 'long' as const, range: cfg.window, offset: undefined },
      { w: 'short' as const, range: cfg.shortWindow, offset: undefined },
      { w: 'baseline' as const, range: cfg.baseline, offset: cfg.window },
    ]) {
      const inc = (selector: string) => `sum by (service) (increase(${selector}[${range}]${offset ? ` offset ${offset}` : ''}))`;
      recording.push({ record: name('negative', w), expr: inc(`${TOTAL}{value="negative"}`) });
      recording.push({ record: name('total', w), expr: inc(TOTAL) });
    }
    const pb = name('share', 'baseline');
    recording.push({ record: pb, expr: `(${name('negative', 'baseline')} + 1)\n/\n(${name('total', 'baseline')} + 2)` });
    const high = name('share_high', 'baseline');
    recording.push({ record: high, expr: `${pb} + 2 * sqrt(${pb} * (1 - ${pb}) / ${name('total', 'baseline')})` });
    for (const w of ['long', 'short'] as const) {
      recording.push({ record: name('share', w), expr: `${name('negative', w)}\n/\n(${name('total', w)} > 0)` });
      recording.push({ record: name('z', w), expr: `(${name('share', w)} - ${pb})\n/\nsqrt(${pb} * (1 - ${pb}) * (1 / ${name('total', w)} + 1 / ${name('total', 'baseline')}))` });
    }
    const rise = (w: 'long' | 'short') => [`${name('z', w)} >= ${t.z}`, `${name('share', w)} >= ${t.minRatio} * ${high}`, `${name('share', w)} - ${high} >= ${t.minIncrease}`];
    const rule: Record<string, unknown> = {
      alert: feedbackAlertName(t.tier),
      expr: [...rise('long'), ...rise('short'), `${name('total', 'baseline')} >= ${t.minBaselineSamples}`, `${name('total', 'long')} >= ${t.minSamples}`].join('\nand\n'),
    };
    if (config.alerts.keepFiringFor !== '0s') rule.keep_firing_for = config.alerts.keepFiringFor;
    rule.labels = { severity: t.tier, kind: 'feedback' };
    rule.annotations = {
      summary: `{{ $labels.service }}: the share of negative user feedback rose against its own ${cfg.baseline} baseline (z={{ $value | printf "%.1f" }} over ${cfg.window})`,
      description: `The share of end users' feedback that is negative over the last ${cfg.window} and ${cfg.shortWindow} is significantly (z ≥ ${t.z}) and materially (≥ ${t.minRatio}× and ≥ +${t.minIncrease}) above the service's share over the ${cfg.baseline} before (docs/feedback.md).`,
      value: '{{ $value | printf "%.1f" }}',
    };
    alerting.push(rule);
  }
  const interval = config.alerts.ruleInterval;
  return [
    { name: 'ragwatch-feedback-recording', interval, rules: recording },
    { name: 'ragwatch-feedback-alerts', interval, rules: alerting },
  ];
}

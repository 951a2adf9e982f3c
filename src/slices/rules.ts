/**
 * The slice alerts as Prometheus rules — what PromQL can express of them: a fixed-window concurrent
 * comparison of each slice with the rest of its service (`ragwatch_slice_*_total`, exported by the one
 * process that sees every record: `ragwatch start` or `ragwatch slices`), a one-sided two-proportion z
 * over the last hour with a minimum effect. The CUSUM (state across evaluations: no recursion in
 * PromQL), its budget-derived threshold, a slice's own baseline, the exact counts of a burst and the
 * release verdict stay in process (docs/alerts.md, "What stays in process").
 * @module
 */
import type { RagwatchConfig } from '../config/schema.ts';
import type { RuleGroup } from '../metrics/rules.ts';
import { sliceAlertName } from './notice.ts';
import { sliceSettingsFromConfig } from './settings.ts';

const BY = 'metric, judge, service, dimension, slice';
const SERVICE = 'metric, judge, service, dimension';
/** The window of the PromQL test. */
const WINDOW = '1h';
/** One-sided z on one window per slice: strict, because every slice of every service is tested at every evaluation. */
const Z = 5;
/** Answers the slice needs in the window. */
const MIN_SAMPLES = 10;

/** Name of a recorded slice series (`ragwatch:slice_z:1h`). */
export function sliceRecordName(what: 'flagged' | 'answers' | 'rest_flagged' | 'rest_answers' | 'share' | 'rest_share' | 'z'): string {
  return `ragwatch:slice_${what}:${WINDOW}`;
}

/** The recording and alerting groups of the slice alerts; none when slices are off or no metric has a change alert. */
export function sliceRuleGroups(config: RagwatchConfig, examplesUrl: string): RuleGroup[] {
  const { rules, settings } = sliceSettingsFromConfig(config.alerts);
  if (rules.length === 0) return [];
  const inc = (name: string) => `sum by (${BY}) (increase(${name}[${WINDOW}]))`;
  const r = sliceRecordName;
  const recording = [
    { record: r('flagged'), expr: inc('ragwatch_slice_flagged_total') },
    { record: r('answers'), expr: inc('ragwatch_slice_answers_total') },
    // The rest of the service over the same hour: the dimension's total minus the slice.
    { record: r('rest_flagged'), expr: `sum without (slice) (${r('flagged')}) - on (${SERVICE}) group_right ${r('flagged')}` },
    { record: r('rest_answers'), expr: `sum without (slice) (${r('answers')}) - on (${SERVICE}) group_right ${r('answers')}` },
    { record: r('share'), expr: `${r('flagged')}\n/\n(${r('answers')} > 0)` },
    // Laplace-smoothed, as in process.
    { record: r('rest_share'), expr: `(${r('rest_flagged')} + 1)\n/\n(${r('rest_answers')} + 2)` },
    { record: r('z'), expr: `(${r('share')} - ${r('rest_share')})\n/\nsqrt(${r('rest_share')} * (1 - ${r('rest_share')}) * (1 / ${r('answers')} + 1 / (${r('rest_answers')} + 2)))` },
  ];
  const alerting = rules.map((rule) => {
    const m = `{metric="${rule.metric}"}`;
    const expr = [
      `${r('z')}${m} >= ${Z}`,
      `${r('answers')}${m} >= ${MIN_SAMPLES}`,
      `${r('share')}${m} >= ${settings.minRatio} * ${r('rest_share')}${m}`,
      `${r('share')}${m} - ${r('rest_share')}${m} >= ${settings.shift / 2}`,
      // A slice holding nearly all of its service's answers is the service: the change alert covers it.
      `${r('answers')}${m} <= ${settings.maxShare} * (${r('answers')}${m} + ${r('rest_answers')}${m})`,
    ].join('\nand\n');
    const rule_: Record<string, unknown> = { alert: sliceAlertName(rule.metric), expr };
    if (config.alerts.keepFiringFor !== '0s') rule_.keep_firing_for = config.alerts.keepFiringFor;
    rule_.labels = { severity: 'page', kind: 'slice' };
    rule_.annotations = {
      summary: `${rule.metric} dropped in {{ $labels.dimension }}={{ $labels.slice }} of {{ $labels.service }} (z={{ $value | printf "%.1f" }} over ${WINDOW} against the rest of the service)`,
      description:
        `The share of ${rule.metric} answers ({{ $labels.judge }} judge) at or below ${rule.cut} in {{ $labels.dimension }}={{ $labels.slice }} over the last ${WINDOW} is significantly (z ≥ ${Z}) ` +
        `and materially (≥ ${settings.minRatio}× and ≥ +${settings.shift / 2}) above the rest of the service over the same hour (docs/alerts.md; the in-process CUSUM pages small canaries sooner).`,
      value: '{{ $value | printf "%.1f" }}',
      examples: `${examplesUrl}/examples?metric=${rule.metric}&service={{ $labels.service | urlquery }}&{{ $labels.dimension }}={{ $labels.slice | urlquery }}`,
    };
    return rule_;
  });
  return [
    { name: 'ragwatch-slice-recording', interval: config.alerts.ruleInterval, rules: recording },
    { name: 'ragwatch-slice-alerts', interval: config.alerts.ruleInterval, rules: alerting },
  ];
}

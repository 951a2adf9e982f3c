/**
 * Every Prometheus rule group of a deployment (`ragwatch rules`, the chart's PrometheusRule): the
 * quality groups of `metrics/`, then each capability's own group. Composed here, at the top, so no
 * consumer of score records imports another to list its rules.
 * @module
 */
import { changeRuleGroups } from '../change/rules.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import { examRuleGroup } from '../exams/rules.ts';
import { examplesBaseUrl, qualityRuleGroups, type RuleGroup } from '../metrics/rules.ts';
import { probeRuleGroup } from '../probes/rules.ts';
import { sliceRuleGroups } from '../slices/rules.ts';
import { sloRuleGroups } from '../slo/rules.ts';
import { feedbackRuleGroups } from '../feedback/rules.ts';

/** The rule groups generated from the configuration. */
export function generateRules(config: RagwatchConfig): { groups: RuleGroup[] } {
  const { ruleInterval } = config.alerts;
  const examples = examplesBaseUrl(config);
  // Suite thresholds are series, so the probe and exam rules are the same for every config (and inert without a prober).
  return { groups: [...qualityRuleGroups(config), ...changeRuleGroups(config, examples), ...sliceRuleGroups(config, examples), ...sloRuleGroups(config, examples), ...feedbackRuleGroups(config), probeRuleGroup(ruleInterval, examples), examRuleGroup(ruleInterval, examples)] };
}

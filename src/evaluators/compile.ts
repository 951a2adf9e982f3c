/**
 * Turns a configured check rule (`evaluators[].check`) into a {@link CheckRule}: one implementation per
 * rule kind, beside this file.
 * @module
 */
import type { CheckRuleConfig } from '../config/sections/evaluators.ts';
import { citesSourceRule } from './cites-source.ts';
import { combineRules } from './combine.ts';
import { jsonSchemaRule } from './json-schema.ts';
import { matchRule } from './must-match.ts';
import { maxCharsRule } from './max-chars.ts';
import type { CheckRule } from './types.ts';

/** A rule as configured, at any nesting level (the config schema allows two levels of all / any). */
type AnyRuleConfig = Omit<CheckRuleConfig, 'all' | 'any'> & { all?: readonly AnyRuleConfig[] | undefined; any?: readonly AnyRuleConfig[] | undefined };

/** Compiles one configured rule (exactly one rule key set, as the config schema checked). */
export function compileRule(rule: AnyRuleConfig): CheckRule {
  if (rule.mustMatch !== undefined) return matchRule(rule.mustMatch, rule.flags ?? '', true);
  if (rule.mustNotMatch !== undefined) return matchRule(rule.mustNotMatch, rule.flags ?? '', false);
  if (rule.citesSource !== undefined) return citesSourceRule(rule.citesSource);
  if (rule.maxChars !== undefined) return maxCharsRule(rule.maxChars);
  if (rule.jsonSchema !== undefined) return jsonSchemaRule(rule.jsonSchema);
  if (rule.all !== undefined) return combineRules('all', rule.all.map(compileRule));
  if (rule.any !== undefined) return combineRules('any', rule.any.map(compileRule));
  throw new Error('a check rule without a rule key (the config schema refuses this)');
}

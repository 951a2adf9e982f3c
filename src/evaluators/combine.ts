/**
 * `all` / `any`: rules combined. Skipped rules are left out (a citation rule on a triplet without
 * sources says nothing); when every rule is skipped, so is the combination (the first reason).
 * @module
 */
import type { CheckRule, RuleOutcome } from './types.ts';

/** Every rule passes (`all`), or at least one does (`any`). */
export function combineRules(mode: 'all' | 'any', rules: readonly CheckRule[]): CheckRule {
  const text = `${mode}(${rules.map((r) => r.text).join(', ')})`;
  return {
    text,
    test(input): RuleOutcome {
      const outcomes = rules.map((r) => r.test(input));
      const judged = outcomes.filter((o): o is { pass: boolean; failed: string[] } => 'pass' in o);
      if (judged.length === 0) return outcomes[0] ?? { skipped: 'no_rules' };
      const pass = mode === 'all' ? judged.every((o) => o.pass) : judged.some((o) => o.pass);
      return { pass, failed: pass ? [] : judged.flatMap((o) => o.failed) };
    },
  };
}

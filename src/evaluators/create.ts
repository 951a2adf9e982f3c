/**
 * The evaluator set of a configuration (`evaluators:`): its checks compiled once, and the names of its
 * `llm` evaluators (judged by the LLM judge, `judges/create.ts`).
 * @module
 */
import type { EvaluatorConfig } from '../config/sections/evaluators.ts';
import { compileRule } from './compile.ts';
import type { CheckRule, Evaluations, EvaluatorSet } from './types.ts';

/** The evaluator set of `config.evaluators`, or undefined when there are none. */
export function createEvaluators(config: { evaluators: readonly EvaluatorConfig[] }): EvaluatorSet | undefined {
  if (config.evaluators.length === 0) return undefined;
  const checks: Array<{ name: string; rule: CheckRule }> = config.evaluators.flatMap((e) => (e.kind === 'check' && e.check ? [{ name: e.name, rule: compileRule(e.check) }] : []));
  const llmNames = config.evaluators.filter((e) => e.kind === 'llm').map((e) => e.name);
  const set: EvaluatorSet = {
    checkNames: checks.map((c) => c.name),
    llmNames,
    check(triplet) {
      const out: Evaluations = { scores: {}, skipped: {}, explanations: {} };
      for (const { name, rule } of checks) {
        let outcome;
        try {
          outcome = rule.test(triplet);
        } catch {
          // A rule that throws on some text is a bug in ragwatch; the metric is skipped, never guessed.
          outcome = { skipped: 'check_error' };
        }
        if ('skipped' in outcome) out.skipped[name] = outcome.skipped;
        else {
          out.scores[name] = outcome.pass ? 1 : 0;
          if (!outcome.pass) out.explanations[name] = { failed: outcome.failed.slice(0, 32).map((f) => f.slice(0, 300)) };
        }
      }
      return out;
    },
    forJudge(checks, judge, { scores, skipped }) {
      const missing = llmNames.filter((name) => scores[name] === undefined && skipped[name] === undefined);
      if (missing.length === 0) return checks;
      return { ...checks, skipped: { ...checks.skipped, ...Object.fromEntries(missing.map((name) => [name, judge === 'llm' ? 'not_judged' : 'no_llm_judge'])) } };
    },
    forRecord(triplet, judge, judged) {
      return set.forJudge(set.check(triplet), judge, judged);
    },
  };
  return set;
}

import { z } from 'zod';
import { BUILTIN_REGISTRY, MAX_EVALUATORS } from '../../metric-registry.ts';
import { METRIC_NAME_PATTERN } from '../../triplet.ts';
import { compileJsonSchema } from '../json-schema.ts';
import { unsafePatternReason } from '../safe-pattern.ts';
import { metricAlertSchema } from './alerts.ts';

/** A regular expression of a check (JavaScript syntax), refused when it could backtrack catastrophically. */
const pattern = z.string().min(1).max(1_000);
const flags = z.string().regex(/^[imsu]*$/, 'regex flags among i, m, s, u');

function refusePattern(source: string | undefined, f: string | undefined, path: string, ctx: z.RefinementCtx): void {
  if (source === undefined) return;
  const reason = unsafePatternReason(source, f ?? '');
  if (reason) ctx.addIssue({ code: 'custom', path: [path], message: `pattern refused: ${reason}` });
}

/** The rules a check can combine; each rule object holds exactly one of them (plus `flags` for the patterns). */
const RULE_KEYS = ['mustMatch', 'mustNotMatch', 'citesSource', 'maxChars', 'jsonSchema', 'all', 'any'] as const;

const leafRule = {
  mustMatch: pattern.optional().describe('Passes when the response matches this regular expression.'),
  mustNotMatch: pattern.optional().describe('Passes when the response does not match this regular expression.'),
  flags: flags.optional().describe('Flags of `mustMatch` / `mustNotMatch` (i, m, s, u).'),
  citesSource: z
    .union([
      z.literal(true),
      z
        .object({
          pattern: pattern.describe('A citation in the response; its first capture group names the source: its 1-based position or its id.'),
          flags: flags.optional().describe('Flags of the pattern (i, m, s, u).'),
        })
        .strict(),
    ])
    .optional()
    .describe('Passes when the response cites a retrieved source: `true` = a source id, or `[n]` for the n-th source, appears in it; `{ pattern }` = a match of the pattern names one. Skipped without sources.'),
  maxChars: z.number().int().positive().optional().describe('Passes when the response has at most this many characters.'),
  jsonSchema: z
    .union([z.literal(true), z.record(z.string(), z.unknown())])
    .optional()
    .describe('Passes when the whole response parses as JSON (`true`) and validates against this JSON Schema (draft-07, or 2020-12 with `$schema`).'),
};

function exactlyOneRule(rule: Record<string, unknown>, ctx: z.RefinementCtx): void {
  const present = RULE_KEYS.filter((k) => rule[k] !== undefined);
  if (present.length !== 1) {
    ctx.addIssue({ code: 'custom', message: present.length === 0 ? `a rule needs one of ${RULE_KEYS.join(', ')}` : `one rule per object: found ${present.join(', ')}; combine them with all / any` });
    return;
  }
  if (rule.flags !== undefined && rule.mustMatch === undefined && rule.mustNotMatch === undefined) ctx.addIssue({ code: 'custom', path: ['flags'], message: 'flags belong to mustMatch / mustNotMatch' });
  refusePattern(rule.mustMatch as string | undefined, rule.flags as string | undefined, 'mustMatch', ctx);
  refusePattern(rule.mustNotMatch as string | undefined, rule.flags as string | undefined, 'mustNotMatch', ctx);
  const cites = rule.citesSource;
  if (typeof cites === 'object' && cites !== null) {
    const c = cites as { pattern: string; flags?: string };
    const reason = unsafePatternReason(c.pattern, c.flags ?? '');
    if (reason) ctx.addIssue({ code: 'custom', path: ['citesSource', 'pattern'], message: `pattern refused: ${reason}` });
    else if (new RegExp(`${c.pattern}|`, c.flags ?? '').exec('')!.length < 2) ctx.addIssue({ code: 'custom', path: ['citesSource', 'pattern'], message: 'the pattern needs a capture group naming the source (its position or id)' });
  }
  const schema = rule.jsonSchema;
  if (typeof schema === 'object' && schema !== null) {
    const compiled = compileJsonSchema(schema as Record<string, unknown>);
    if (!compiled.ok) ctx.addIssue({ code: 'custom', path: ['jsonSchema'], message: `not a usable JSON Schema: ${compiled.problem}` });
  }
}

const MAX_RULES = 16;
const rule0 = z.object(leafRule).strict().superRefine(exactlyOneRule);
const rule1 = z
  .object({ ...leafRule, all: z.array(rule0).min(1).max(MAX_RULES).optional(), any: z.array(rule0).min(1).max(MAX_RULES).optional() })
  .strict()
  .superRefine(exactlyOneRule);
/** One rule of a check: a leaf rule, or `all` / `any` of rules (nested at most twice). */
const checkRule = z
  .object({
    ...leafRule,
    all: z.array(rule1).min(1).max(MAX_RULES).optional().describe('Passes when every rule passes (skipped rules are left out; all skipped = skipped).'),
    any: z.array(rule1).min(1).max(MAX_RULES).optional().describe('Passes when at least one rule passes (skipped rules are left out; all skipped = skipped).'),
  })
  .strict()
  .superRefine(exactlyOneRule);

/** A check rule as configured (leaf or combination). */
export type CheckRuleConfig = z.output<typeof checkRule>;

/** What an `llm` evaluator may read of a triplet. */
export const EVALUATOR_INPUTS = ['query', 'sources', 'response', 'history'] as const;
export type EvaluatorInput = (typeof EVALUATOR_INPUTS)[number];

const labelName = z.string().regex(/^[a-z][a-z0-9_]{0,31}$/, 'a label: lower snake case, at most 32 characters');

/** What an `llm` evaluator's judge answers. */
const output = z
  .object({
    type: z.enum(['score', 'boolean', 'categorical']).default('boolean').describe('`score`: a value in [0,1]; `boolean`: pass (1) or fail (0); `categorical`: one of `labels`, recorded as its value.'),
    labels: z
      .array(z.object({ label: labelName.describe('The label the judge answers.'), value: z.number().min(0).max(1).describe('The score a record carries for this label (higher is better).') }).strict())
      .min(2)
      .max(10)
      .optional()
      .describe('`categorical` only: the labels the judge chooses from, each with its value.'),
  })
  .strict()
  .superRefine((o, ctx) => {
    if (o.type === 'categorical' && !o.labels) ctx.addIssue({ code: 'custom', path: ['labels'], message: 'a categorical output needs labels (2 to 10, each with a value)' });
    if (o.type !== 'categorical' && o.labels) ctx.addIssue({ code: 'custom', path: ['labels'], message: `labels belong to a categorical output, not ${o.type}` });
    const seen = new Set<string>();
    for (const [i, l] of (o.labels ?? []).entries()) {
      if (seen.has(l.label)) ctx.addIssue({ code: 'custom', path: ['labels', i, 'label'], message: `label "${l.label}" is listed twice` });
      seen.add(l.label);
    }
  });

const exampleText = z.string().max(4_000);
/** A worked example shown to the judge before the data (few-shot). Written by the team, so part of the instruction. */
const example = z
  .object({
    query: exampleText.optional().describe('The example\'s query (for evaluators that read it).'),
    sources: z.array(exampleText).max(5).optional().describe('The example\'s sources.'),
    response: exampleText.optional().describe('The example\'s response.'),
    history: z.array(z.object({ role: z.enum(['user', 'assistant']).describe('Who said it.'), content: exampleText.describe('What was said.') }).strict()).max(6).optional().describe('The example\'s earlier turns.'),
    value: z.number().min(0).max(1).optional().describe('`score` output: the expected value.'),
    label: labelName.optional().describe('`boolean` (`pass` / `fail`) and `categorical` output: the expected label.'),
    reason: z.string().max(500).optional().describe('Why (one sentence), shown to the judge.'),
  })
  .strict();

/** The alert settings of an evaluator's metric: those of `alerts.metrics.<metric>`, with a default threshold. */
const evaluatorAlerts = metricAlertSchema.extend({
  threshold: z.number().min(0).max(1).default(0.8).describe('Windowed weighted mean below this is low (alert). Default 0.8: more than one answer in five failing.'),
  severity: z.string().regex(/^[a-z][a-z0-9_]*$/).default('ticket').describe('`severity` label. Default `ticket`; `page` also turns change alerts on.'),
});

/** One evaluator: a metric of the team's own, judged by the LLM (`kind: llm`) or checked by rule (`kind: check`). */
const evaluator = z
  .object({
    /** The metric name (`metric="<name>"` on every series): lower snake case, unique, not a built-in metric's. */
    name: z.string().regex(METRIC_NAME_PATTERN, 'a metric name: lower snake case, starting with a letter, at most 48 characters'),
    /** One sentence: what a high value means (shown on pages, dashboards and alerts). */
    description: z.string().trim().min(1).max(300),
    /** `llm`: a rubric judged through the LLM judge's client (all of a triplet's in one call); `check`: deterministic rules, with any judge. */
    kind: z.enum(['llm', 'check']),
    /** `llm`: the instruction the judge follows (what passes, what fails). */
    rubric: z.string().trim().min(1).max(4_000).optional(),
    /** `llm`: what the judge reads of the triplet. Default query, sources and response. */
    inputs: z.array(z.enum(EVALUATOR_INPUTS)).min(1).max(4).optional(),
    /** `llm`: the answer's type. Default `boolean`. */
    output: output.optional(),
    /** `llm`: worked examples shown before the data (at most 5). */
    examples: z.array(example).max(5).optional(),
    /** `check`: the rule (mustMatch, mustNotMatch, citesSource, maxChars, jsonSchema, or all / any of rules). */
    check: checkRule.optional(),
    /**
     * The review page's yes / no question for this evaluator (`/review`; the answers calibrate it, docs/calibration.md).
     * Default none: labels of the evaluator's name are still accepted through `/api/labels` and `ragwatch labels import`.
     */
    question: z.string().trim().min(1).max(300).optional(),
    /** Alert settings, as `alerts.metrics.<metric>` (threshold default 0.8, severity `ticket`). */
    alerts: evaluatorAlerts.prefault({}),
  })
  .strict()
  .superRefine((e, ctx) => {
    const wrong = (key: string, why: string) => ctx.addIssue({ code: 'custom', path: [key], message: why });
    if (e.kind === 'llm') {
      if (e.rubric === undefined) wrong('rubric', 'an llm evaluator needs a rubric');
      if (e.check !== undefined) wrong('check', 'check belongs to kind: check');
      const type = e.output?.type ?? 'boolean';
      const labels = type === 'boolean' ? ['pass', 'fail'] : (e.output?.labels ?? []).map((l) => l.label);
      for (const [i, ex] of (e.examples ?? []).entries()) {
        if (type === 'score' && (ex.value === undefined || ex.label !== undefined)) wrong(`examples.${i}`, 'an example of a score output gives its value (not a label)');
        if (type !== 'score' && (ex.label === undefined || ex.value !== undefined)) wrong(`examples.${i}`, `an example of a ${type} output gives its label (${labels.join(', ')})`);
        else if (ex.label !== undefined && !labels.includes(ex.label)) wrong(`examples.${i}.label`, `"${ex.label}" is not one of ${labels.join(', ')}`);
      }
    } else {
      if (e.check === undefined) wrong('check', 'a check evaluator needs a check (a rule, or all / any of rules)');
      for (const key of ['rubric', 'inputs', 'output', 'examples'] as const) if (e[key] !== undefined) wrong(key, `${key} belongs to kind: llm`);
    }
  });

/** One resolved evaluator. */
export type EvaluatorConfig = z.output<typeof evaluator>;

/**
 * Your own evaluators (docs/evaluators.md): each a metric with everything a built-in metric gets (series,
 * alerts, slices, gates, pages, dashboards). A list here, or a directory of YAML files (one evaluator or a
 * list per file) named by a string, relative to the config file. At most 16 (label cardinality).
 */
export const evaluatorsSection = z
  .array(evaluator)
  .max(MAX_EVALUATORS, `at most ${MAX_EVALUATORS} evaluators (each adds a metric label value to every score series; docs/evaluators.md)`)
  .default([])
  .superRefine((list, ctx) => {
    const seen = new Map<string, number>();
    for (const [i, e] of list.entries()) {
      if (BUILTIN_REGISTRY.has(e.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `"${e.name}" is a built-in metric; pick another name` });
      const first = seen.get(e.name);
      if (first !== undefined) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `"${e.name}" is already the name of evaluators.${first}` });
      else seen.set(e.name, i);
    }
  });

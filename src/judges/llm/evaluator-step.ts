/**
 * The one call that judges every `llm` evaluator of a triplet (docs/evaluators.md): each evaluator's
 * rubric and examples are the operator's instruction; the triplet's texts (only the inputs some
 * evaluator reads) are untrusted data in per-call nonce blocks, exactly as in the built-in steps; the
 * structured output has one field per evaluator — `label` (boolean: pass / fail; categorical: one of
 * its labels) or `value` (score, in [0,1]), and a one-sentence `reason`.
 *
 * Parsing is per evaluator: a field that is missing or malformed leaves that metric without a verdict
 * (the caller asks once more, then skips it as `malformed_output`), never a guessed score.
 * @module
 */
import { z } from 'zod';
import type { EvaluatorConfig, EvaluatorInput } from '../../config/sections/evaluators.ts';
import { newBoundary, sanitizeUntrusted, systemPrompt, tailReminder, wrapUntrusted } from './prompts.ts';
import { outputBudget, toJsonSchema, type Step } from './step.ts';

/** Version of the evaluator prompt; part of the cache key, bump when its meaning changes. */
export const EVALUATOR_PROMPT_VERSION = 'e1';

/** Longest reason kept, characters (the rest is cut: a reason is one sentence). */
const MAX_REASON_CHARS = 300;

/** An `llm` evaluator as the call needs it (a resolved `evaluators[]` entry of `kind: llm`). */
export type LlmEvaluator = Pick<EvaluatorConfig, 'name' | 'description' | 'rubric' | 'inputs' | 'output' | 'examples'>;

/** What the judge said of one evaluator. */
export interface EvaluatorVerdict {
  /** The metric's value in [0,1] (a label's value; pass = 1, fail = 0). */
  value: number;
  label?: string;
  reason: string;
}

/** The verdicts the answer held, and why each other evaluator has none. */
export interface EvaluatorAnswer {
  verdicts: Map<string, EvaluatorVerdict>;
  /** Evaluator name → what was wrong with its field (or with the whole answer). */
  problems: Map<string, string>;
}

/** The texts of a triplet an evaluator may read. */
export interface EvaluatorData {
  query: string;
  sources: readonly string[];
  response: string;
  history: ReadonlyArray<{ role: 'user' | 'assistant'; content: string }>;
}

const DEFAULT_INPUTS: readonly EvaluatorInput[] = ['query', 'sources', 'response'];
const INPUT_BLOCK: Record<EvaluatorInput, string> = { query: 'QUERY', sources: 'SOURCES', response: 'RESPONSE', history: 'EARLIER TURNS' };

/** The inputs of one evaluator (default query, sources, response). */
export function inputsOf(e: LlmEvaluator): readonly EvaluatorInput[] {
  return e.inputs ?? DEFAULT_INPUTS;
}

function labelsOf(e: LlmEvaluator): Array<{ label: string; value: number }> {
  const type = e.output?.type ?? 'boolean';
  if (type === 'boolean') return [{ label: 'pass', value: 1 }, { label: 'fail', value: 0 }];
  return type === 'categorical' ? [...(e.output?.labels ?? [])] : [];
}

/** The schema of one evaluator's field. */
function fieldSchema(e: LlmEvaluator) {
  const reason = z.string().trim().min(1);
  if ((e.output?.type ?? 'boolean') === 'score') return z.strictObject({ value: z.number().min(0).max(1), reason });
  const labels = labelsOf(e).map((l) => l.label);
  return z.strictObject({ label: z.enum(labels as [string, ...string[]]), reason });
}

/** One evaluator's part of the task: its rubric, its inputs, its answer type and its examples (the operator's text, sanitised like data so it cannot forge a block). */
function criterion(e: LlmEvaluator): string {
  const type = e.output?.type ?? 'boolean';
  const answer =
    type === 'score'
      ? '"value": a number from 0 (fails the rubric completely) to 1 (meets it fully)'
      : type === 'boolean'
        ? '"label": "pass" if the RESPONSE meets the rubric, "fail" if it does not'
        : `"label": the one of ${labelsOf(e).map((l) => `"${l.label}"`).join(', ')} that fits best`;
  const lines = [
    `### "${e.name}" — ${sanitizeUntrusted(e.description)}`,
    `Reads: ${inputsOf(e).map((i) => INPUT_BLOCK[i]).join(', ')}.`,
    `Rubric: ${sanitizeUntrusted(e.rubric ?? '')}`,
    `Answer: ${answer}; "reason": one sentence.`,
  ];
  for (const [i, ex] of (e.examples ?? []).entries()) {
    const parts = [
      ...(ex.history ?? []).map((t) => `earlier ${t.role}: ${JSON.stringify(sanitizeUntrusted(t.content))}`),
      ...(ex.query !== undefined ? [`QUERY: ${JSON.stringify(sanitizeUntrusted(ex.query))}`] : []),
      ...(ex.sources ?? []).map((s, j) => `SOURCE ${j + 1}: ${JSON.stringify(sanitizeUntrusted(s))}`),
      ...(ex.response !== undefined ? [`RESPONSE: ${JSON.stringify(sanitizeUntrusted(ex.response))}`] : []),
    ];
    const verdict = `${ex.label !== undefined ? `"label": "${ex.label}"` : `"value": ${ex.value}`}${ex.reason ? `, "reason": ${JSON.stringify(sanitizeUntrusted(ex.reason))}` : ''}`;
    lines.push(`Example ${i + 1} (written by the operator, not data of this call): ${parts.join(' | ')} → ${verdict}`);
  }
  return lines.join('\n');
}

/** Builds the call for `evaluators` (at least one) on one triplet's texts. */
export function evaluatorStep(data: EvaluatorData, evaluators: readonly LlmEvaluator[]): Step<EvaluatorAnswer> {
  const read = new Set(evaluators.flatMap(inputsOf));
  const sources = read.has('sources') ? data.sources : [];
  const history = read.has('history') ? data.history : [];
  const query = read.has('query') ? data.query : undefined;
  const response = read.has('response') ? data.response : undefined;
  const boundary = newBoundary([query ?? '', response ?? '', ...sources, ...history.map((t) => t.content)]);
  const fields = Object.fromEntries(evaluators.map((e) => [e.name, fieldSchema(e)]));
  const schema = z.strictObject({ call: z.enum([boundary.nonce]), evaluations: z.strictObject(fields) });
  const names = evaluators.map((e) => `"${e.name}"`).join(', ');
  const task = [
    `Judge the texts in the data blocks against each of the ${evaluators.length} criteria below, each on its own and only from the inputs it reads (a missing input counts as empty). Judge what the texts say, not whether you agree with them.`,
    ...evaluators.map(criterion),
  ].join('\n\n');
  const contract = `Keys: "evaluations", an object with exactly the keys ${names}, each an object as its criterion says ("label" or "value", and "reason").`;
  const blocks = [
    ...history.map((t, i) => wrapUntrusted(boundary, `earlier-turn-${t.role}`, t.content, `t${i + 1}`)),
    ...(query !== undefined ? [wrapUntrusted(boundary, 'query', query)] : []),
    ...sources.map((s, i) => wrapUntrusted(boundary, 'source', s, `s${i + 1}`)),
    ...(response !== undefined ? [wrapUntrusted(boundary, 'response', response)] : []),
  ];
  const envelope = z.object({ call: z.literal(boundary.nonce), evaluations: z.record(z.string(), z.unknown()) });
  return {
    name: 'evaluators',
    boundary,
    // The restatement after the data names the criteria without repeating them: rubrics and examples can be long.
    messages: [
      { role: 'system', content: systemPrompt(boundary) },
      { role: 'user', content: [`TASK: ${task}`, '', ...blocks, '', tailReminder(boundary, `judge the data against each of the ${evaluators.length} criteria stated before it (${names}), each on its own, from the inputs it reads.`, contract)].join('\n') },
    ],
    jsonSchema: toJsonSchema(schema),
    contract,
    // Per evaluator: a label or value and one sentence of reason (cut at 300 characters).
    outputTokens: outputBudget(evaluators.length, MAX_REASON_CHARS + 60),
    parse(content) {
      const text = content.trim().replace(/^```(?:json)?\s*\n([\s\S]*)\n```$/u, '$1');
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch {
        return { ok: false, problem: 'the answer is not a JSON object' };
      }
      const env = envelope.safeParse(raw);
      if (!env.success) return { ok: false, problem: `the answer needs "call": "${boundary.nonce}" and an "evaluations" object` };
      const answer: EvaluatorAnswer = { verdicts: new Map(), problems: new Map() };
      for (const e of evaluators) {
        const field = fieldSchema(e).safeParse(env.data.evaluations[e.name]);
        if (!field.success) {
          const issue = field.error.issues[0];
          answer.problems.set(e.name, env.data.evaluations[e.name] === undefined ? `"${e.name}" is missing` : `"${e.name}${issue?.path.length ? `.${issue.path.join('.')}` : ''}": ${issue?.message ?? 'invalid'}`);
          continue;
        }
        const f = field.data as { label?: string; value?: number; reason: string };
        const reason = f.reason.length > MAX_REASON_CHARS ? `${f.reason.slice(0, MAX_REASON_CHARS - 1)}…` : f.reason;
        const value = f.label !== undefined ? labelsOf(e).find((l) => l.label === f.label)!.value : f.value!;
        answer.verdicts.set(e.name, { value, ...(f.label !== undefined ? { label: f.label } : {}), reason });
      }
      return { ok: true, value: answer };
    },
  };
}

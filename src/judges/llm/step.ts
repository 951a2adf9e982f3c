/**
 * One judge call as a step (the machinery every LLM step shares: the judges' protocol in `steps.ts`,
 * the probes' `match: judge`, the exams' generation): its messages with the untrusted data fenced, a
 * per-call zod schema exported to JSON schema for structured output, the count check of ids, and
 * {@link runStep} — a call, validation, at most one repair.
 * @module
 */
import { z } from 'zod';
import { RagwatchError } from '../../errors.ts';
import type { Usage } from '../../triplet.ts';
import type { JudgeFailure } from '../types.ts';
import type { ChatMessage, LlmClient } from './client.ts';
import { failureReason } from './outcomes.ts';
import { repairMessage, systemPrompt, tailReminder, type Boundary } from './prompts.ts';

/** A prepared call: messages, schema, and the validator that turns raw content into typed output. */
export interface Step<T> {
  name: string;
  boundary: Boundary;
  messages: ChatMessage[];
  jsonSchema: Record<string, unknown>;
  /** {@link jsonSchema} with every id pinned to one place ({@link pinIds}): what a grammar-constrained server is given. Default `jsonSchema`. */
  grammarSchema?: Record<string, unknown>;
  /** Restated output contract (also used in the repair message). */
  contract: string;
  /** Most output tokens the answer needs (a generous estimate from the number and size of the items asked for); default the client's `maxOutputTokens`. */
  outputTokens?: number;
  /** Parses and validates raw content; a string is the problem found. */
  parse(content: string): { ok: true; value: T } | { ok: false; problem: string };
}

// Keywords strict structured output does not accept; zod still enforces them on the answer.
const UNPORTABLE = new Set(['$schema', 'minLength', 'maxLength']);

function portable(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(portable);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(Object.entries(node).filter(([k]) => !UNPORTABLE.has(k)).map(([k, v]) => [k, portable(v)]));
}

/** The JSON schema of `schema` without the keywords strict structured output refuses. */
export function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  return portable(z.toJSONSchema(schema)) as Record<string, unknown>;
}

/**
 * The JSON schema of an array of `{id, …}` items (`item`, the JSON schema of one) with each of `ids` in
 * its own place, once, in order (`prefixItems` with a `const` id). A grammar-constrained server
 * (llama-cpp-python's `json_object` + schema) then cannot let a small model list an id twice or leave
 * one out, which an enum of ids alone allows. Strict `json_schema` endpoints do not all take
 * `prefixItems`, so they get the plain schema; zod checks the answer either way.
 * @param each - adjusts the item of one id (e.g. pins its own nested ids)
 */
export function pinIds(item: Record<string, unknown>, ids: readonly string[], each: (id: string, item: Record<string, unknown>) => Record<string, unknown> = (_, i) => i): Record<string, unknown> {
  return {
    type: 'array',
    prefixItems: ids.map((id) => each(id, withProperties(item, { id: { type: 'string', const: id } }))),
    minItems: ids.length,
    maxItems: ids.length,
  };
}

/** `schema` (a JSON schema object) with some of its `properties` replaced. */
export function withProperties(schema: Record<string, unknown>, properties: Record<string, unknown>): Record<string, unknown> {
  return { ...schema, properties: { ...(schema.properties as Record<string, unknown>), ...properties } };
}

export function idEnum(ids: readonly string[]): z.ZodType<string> {
  return ids.length > 0 ? z.enum(ids as [string, ...string[]]) : z.string();
}

/** Checks that `got` holds every expected id exactly once (the count check). */
export function checkIds(what: string, expected: readonly string[], got: readonly string[]): string | undefined {
  if (got.length !== expected.length) return `expected ${expected.length} ${what} (ids ${expected.join(', ') || 'none'}), got ${got.length}`;
  const seen = new Set<string>();
  for (const id of got) {
    if (!expected.includes(id)) return `unknown ${what} id "${id}"`;
    if (seen.has(id)) return `duplicate ${what} id "${id}"`;
    seen.add(id);
  }
  return undefined;
}

/** Parses a whole-message JSON answer against `schema`, then `check`; a string is the problem found. */
export function parseWith<T>(schema: z.ZodType<T>, content: string, check: (v: T) => string | undefined): { ok: true; value: T } | { ok: false; problem: string } {
  // Only a whole-message JSON object is accepted (optionally fenced); JSON is never fished out of prose.
  const text = content.trim().replace(/^```(?:json)?\s*\n([\s\S]*)\n```$/u, '$1');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { ok: false, problem: 'the answer is not a JSON object' };
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, problem: `the JSON does not match the schema at "${issue?.path.join('.') ?? ''}": ${issue?.message ?? 'invalid'}` };
  }
  const problem = check(parsed.data);
  return problem ? { ok: false, problem } : { ok: true, value: parsed.data };
}

/** The system prompt and the user message of a step: task, untrusted data, tail reminder. */
export function stepMessages(boundary: Boundary, task: string, data: string[], contract: string): ChatMessage[] {
  return [
    { role: 'system', content: systemPrompt(boundary) },
    { role: 'user', content: [`TASK: ${task}`, '', ...data, '', tailReminder(boundary, task, contract)].join('\n') },
  ];
}

/**
 * The `frequency_penalty` of the call sent again after a truncated answer. Measured on the 1.5B model
 * (llama-cpp-python, row 7 of the HaluEval development file, whose decompose answer loops): 0 — 1 of 2
 * answers cut; 0.5 — 2 of 2 complete, 263–288 tokens of a 787-token budget.
 */
export const TRUNCATION_FREQUENCY_PENALTY = 0.5;

/** What to tell the model of an invalid answer: a cut-off answer is invalid because it ran long, not because the model ignored the format, so it is told that (and asked for less). */
export function invalidProblem(res: { truncated?: boolean; outputTokens: number }, problem: string): string {
  return res.truncated ? `the answer stopped at its output budget (${res.outputTokens} tokens) before its JSON was complete: list each item once, with fewer and shorter items` : problem;
}

/**
 * The one repair call after an invalid answer `res` to `step`. A cut answer is mostly a small model
 * repeating one list item until max_tokens: showing it the loop again invites more of it, so the call is
 * asked afresh with the problem said and repeats penalised. Any other invalid answer is shown back
 * with the problem.
 */
export function repairCall(step: Pick<Step<unknown>, 'messages' | 'boundary' | 'contract'>, res: { truncated?: boolean; content: string }, problem: string): { messages: ChatMessage[]; frequencyPenalty?: number } {
  if (res.truncated) {
    const last = step.messages.length - 1;
    return { messages: step.messages.map((m, i) => (i === last ? { ...m, content: `${m.content}\n\n${repairMessage(step.boundary, problem, step.contract)}` } : m)), frequencyPenalty: TRUNCATION_FREQUENCY_PENALTY };
  }
  return { messages: [...step.messages, { role: 'assistant', content: res.content.slice(0, 8000) }, { role: 'user', content: repairMessage(step.boundary, problem, step.contract) }] };
}

/** What a step yields: its validated output, or why the call failed. */
export type StepOutcome<T> = { ok: true; value: T } | JudgeFailure;

/** Runs one step: a call, validation, at most one repair call; a second invalid answer is a failure. Usage is added to `usage`; the outcome is counted by the client. */
export async function runStep<T>(client: LlmClient, step: Step<T>, usage: Usage, signal?: AbortSignal): Promise<StepOutcome<T>> {
  let messages = step.messages;
  let frequencyPenalty: number | undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    const res = await client.complete(
      { messages, schemaName: `ragwatch_${step.name}`, jsonSchema: step.jsonSchema, ...(step.grammarSchema ? { grammarSchema: step.grammarSchema } : {}), ...(step.outputTokens !== undefined ? { outputTokens: step.outputTokens } : {}), ...(frequencyPenalty !== undefined ? { frequencyPenalty } : {}) },
      signal,
    );
    if (!res.ok) {
      client.noteOutcome(step.name, failureReason(res.error.code, res.error.message));
      return res;
    }
    usage.calls++;
    usage.inputTokens += res.inputTokens;
    usage.outputTokens += res.outputTokens;
    const parsed = step.parse(res.content);
    if (parsed.ok) {
      client.noteOutcome(step.name, attempt === 0 ? 'valid_first_try' : 'valid_after_repair');
      return parsed;
    }
    const problem = invalidProblem(res, parsed.problem);
    if (attempt === 1) {
      client.noteOutcome(step.name, res.truncated ? 'truncated' : 'malformed');
      return { ok: false, retriable: false, error: new RagwatchError('RAGWATCH_JUDGE_MALFORMED', `judge answer to ${step.name} invalid after one repair: ${problem}`) };
    }
    ({ messages, frequencyPenalty } = repairCall(step, res, problem));
  }
  throw new Error('unreachable');
}

/** A generous output budget in tokens for an answer of `items` list entries of about `charsPerItem` characters each. */
export function outputBudget(items: number, charsPerItem: number): number {
  return Math.ceil(64 + items * (12 + charsPerItem / 2.5));
}

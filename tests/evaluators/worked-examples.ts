/**
 * The worked examples of docs/evaluators.md, shared by the tests and the bench: the files of
 * `config/examples/evaluators/` (two checks: a source must be cited, a JSON answer; two llm evaluators:
 * no dosage advice, boolean; answer tone, categorical), as the configuration reads them.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { parse } from 'yaml';

const DIR = new URL('../../config/examples/evaluators/', import.meta.url);

/** One evaluator entry as written in a file (the input of the config schema). */
export interface EvaluatorEntry {
  name: string;
  kind: 'llm' | 'check';
  [key: string]: unknown;
}

export const WORKED_EXAMPLES: EvaluatorEntry[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .map((f) => parse(readFileSync(new URL(f, DIR), 'utf8')) as EvaluatorEntry);

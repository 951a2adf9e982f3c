/**
 * Reads and writes exam files (YAML, versioned) and reads exam suites; `${VAR}` in the taker and the
 * target headers comes from the environment. Errors name the file and its key.
 * @module
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml, stringify } from 'yaml';
import { examSuiteSchema, type ExamSuite } from './suite.ts';
import { examSchema, type Exam } from './types.ts';
import { SuiteError } from '../errors.ts';
import { processEnv } from '../config/env.ts';

function readYaml(file: string, what: string): unknown {
  try {
    return parseYaml(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new SuiteError(`${what} ${file}: cannot read it: ${(err as Error).message}`, []);
  }
}

function validated<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } } }, raw: unknown, file: string, what: string): T {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const key = issue.path.map(String).join('.');
  throw new SuiteError(`${what} ${file}: key "${key}": ${issue.message}`, [key]);
}

/** Loads and validates an exam file. */
export function loadExam(file: string): Exam {
  return validated(examSchema, readYaml(file, 'exam'), file, 'exam');
}

/** Writes an exam file (a person reviews and edits it: plain YAML, one item after the other). */
export function saveExam(file: string, exam: Exam): void {
  writeFileSync(file, stringify(exam, { lineWidth: 0 }));
}

const expand = (value: string, key: string, file: string, env: Record<string, string | undefined>) =>
  value.replace(/\$\{([A-Z_][A-Z0-9_]*)\}/g, (_, v: string) => {
    const got = env[v];
    if (got === undefined) throw new SuiteError(`exam suite ${file}: key "${key}": environment variable ${v} is not set`, [key]);
    return got;
  });

/** Loads an exam suite and its exam; `taker` (e.g. `--taker`) replaces the suite's. */
export function loadExamSuite(file: string, env: Readonly<Record<string, string | undefined>> = processEnv(), taker?: string): { suite: ExamSuite; exam: Exam } {
  const suite = validated(examSuiteSchema, readYaml(file, 'exam suite'), file, 'exam suite');
  suite.taker = taker ?? expand(suite.taker, 'taker', file, env);
  if (!/^[A-Za-z0-9][A-Za-z0-9._+-]{0,127}$/.test(suite.taker)) throw new SuiteError(`exam suite ${file}: key "taker": "${suite.taker}" must be letters, digits and . _ + - (a Prometheus label value)`, ['taker']);
  for (const [name, value] of Object.entries(suite.target.headers)) suite.target.headers[name] = expand(value, `target.headers.${name}`, file, env);
  return { suite, exam: loadExam(resolve(dirname(resolve(file)), suite.exam)) };
}

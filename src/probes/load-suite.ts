/**
 * Reads a probe suite file (YAML) and its facts: the SQLite path resolved against the suite's folder
 * (opened read-only later, by src/probes), or the CSV files of a directory parsed here (one table per
 * file). `${VAR}` in target headers comes from the environment. Errors name the suite key.
 * @module
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { parse as parseYaml } from 'yaml';
import { SuiteError } from '../errors.ts';
import { probeSuiteSchema, type ProbeSuite } from './suite.ts';
import type { FactSource } from './types.ts';
import { processEnv } from '../config/env.ts';

/** Largest CSV file read, bytes. */
const MAX_CSV_BYTES = 64 * 1024 * 1024;

/** Loads and validates a suite file; the facts come back ready for {@link openFacts}. */
export function loadProbeSuite(file: string, env: Readonly<Record<string, string | undefined>> = processEnv()): { suite: ProbeSuite; facts: FactSource } {
  let raw: unknown;
  try {
    raw = parseYaml(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new SuiteError(`probe suite ${file}: cannot read it: ${(err as Error).message}`, []);
  }
  const parsed = probeSuiteSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = issue.path.join('.');
    throw new SuiteError(`probe suite ${file}: key "${key}": ${issue.message}`, [key]);
  }
  const suite = parsed.data;
  for (const [name, value] of Object.entries(suite.target.headers)) {
    suite.target.headers[name] = value.replace(/\$\{([A-Z_][A-Z0-9_]*)\}/g, (_, v: string) => {
      const got = env[v];
      if (got === undefined) throw new SuiteError(`probe suite ${file}: key "target.headers.${name}": environment variable ${v} is not set`, [`target.headers.${name}`]);
      return got;
    });
  }
  const base = dirname(resolve(file));
  if (suite.database !== undefined) return { suite, facts: { kind: 'sqlite', path: resolve(base, suite.database) } };
  const dir = resolve(base, suite.csv!);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => extname(n).toLowerCase() === '.csv');
  } catch (err) {
    throw new SuiteError(`probe suite ${file}: key "csv": cannot read directory ${dir}: ${(err as Error).message}`, ['csv']);
  }
  if (names.length === 0) throw new SuiteError(`probe suite ${file}: key "csv": no .csv file in ${dir}`, ['csv']);
  const tables: Record<string, Array<Record<string, string>>> = {};
  for (const name of names) {
    const path = join(dir, name);
    if (statSync(path).size > MAX_CSV_BYTES) throw new SuiteError(`probe suite ${file}: key "csv": ${name} is over ${MAX_CSV_BYTES} bytes`, ['csv']);
    try {
      tables[basename(name, extname(name))] = parseCsv(readFileSync(path), { columns: true, skip_empty_lines: true, trim: true, bom: true }) as Array<Record<string, string>>;
    } catch (err) {
      throw new SuiteError(`probe suite ${file}: key "csv": ${name}: ${(err as Error).message}`, ['csv']);
    }
  }
  return { suite, facts: { kind: 'csv', tables } };
}

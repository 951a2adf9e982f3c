/**
 * Probe generation (issue 17, first part): suites over a SQLite file (read-only) and CSV files; fill-ins
 * bound as parameters (values with quotes and `;`); deterministic subsampling; every bad-suite case
 * stops with an error naming the template and the key.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { SuiteError } from '../../src/errors.ts';
import { loadProbeSuite } from '../../src/probes/load-suite.ts';
import { generateProbes, openFacts, perturb } from '../../src/probes/generate.ts';

const dir = mkdtempSync(join(tmpdir(), 'ragwatch-probes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const EMPLOYEES: Array<[string, string, number]> = [
  ['Alice Martin', 'Finance', 1998],
  ["Brian O'Hara; DROP TABLE employees", 'Legal', 2004],
  ['Chen Wei', 'Engineering', 2011],
  ['Dana Kim', 'Engineering', 2015],
];
const dbPath = join(dir, 'acme.sqlite');
{
  const db = new DatabaseSync(dbPath);
  db.exec('CREATE TABLE employees (name TEXT, department TEXT, hired INTEGER)');
  const insert = db.prepare('INSERT INTO employees VALUES (?, ?, ?)');
  for (const e of EMPLOYEES) insert.run(...e);
  db.close();
}

const TARGET = { url: 'http://127.0.0.1:8080/ask', answerPath: 'answer' };
function suiteFile(name: string, suite: Record<string, unknown>): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, stringify({ suite: 'acme_hr', database: 'acme.sqlite', target: TARGET, ...suite }));
  return file;
}
const DEPARTMENT = { name: 'employee_department', sql: "SELECT department FROM employees WHERE name = '[employees.name]'", texts: ['Which department does [employees.name] work in?', '[employees.name] belongs to which department?'] };

async function probes(file: string) {
  const { suite, facts } = loadProbeSuite(file);
  const db = await openFacts(facts);
  try {
    return generateProbes(suite, db);
  } finally {
    db.close();
  }
}

describe('probe generation', () => {
  it('fills every wording from the facts, binds values as parameters (quotes and ; included), truth from the SQL', async () => {
    const qs = await probes(suiteFile('ok', { templates: [DEPARTMENT], perturbations: ['typo', 'lowercase'] }));
    expect(qs).toHaveLength(EMPLOYEES.length * 4);
    const brian = qs.filter((q) => q.fill['employees.name']!.startsWith('Brian'));
    expect(brian.map((q) => q.variant)).toEqual(['text:0', 'text:1', 'typo', 'lowercase']);
    expect(brian[0]!.query).toBe("Which department does Brian O'Hara; DROP TABLE employees work in?");
    expect(brian[1]!.query).toBe("Brian O'Hara; DROP TABLE employees belongs to which department?");
    expect(brian.every((q) => q.truth[0] === 'Legal' && q.group === brian[0]!.group)).toBe(true);
    expect(new Set(qs.map((q) => q.group)).size).toBe(EMPLOYEES.length);
    // The facts were not modified by the value that looks like SQL.
    const db = new DatabaseSync(dbPath, { readOnly: true });
    expect((db.prepare('SELECT count(*) AS n FROM employees').get() as { n: number }).n).toBe(4);
    db.close();
  });

  it('subsamples the fill-ins deterministically to maxQueriesPerTemplate', async () => {
    const a = await probes(suiteFile('sub', { templates: [DEPARTMENT], limits: { maxQueriesPerTemplate: 2 } }));
    const b = await probes(suiteFile('sub', { templates: [DEPARTMENT], limits: { maxQueriesPerTemplate: 2 } }));
    expect(new Set(a.map((q) => q.group)).size).toBe(2);
    expect(a).toEqual(b);
  });

  it('reads CSV facts (one table per file)', async () => {
    const csv = join(dir, 'csv');
    mkdirSync(csv, { recursive: true });
    writeFileSync(join(csv, 'employees.csv'), 'name,department,hired\n"Alice Martin",Finance,1998\n"Chen Wei",Engineering,2011\n');
    const file = join(dir, 'csv.yaml');
    writeFileSync(file, stringify({ suite: 'acme_hr', csv: 'csv', target: TARGET, templates: [DEPARTMENT] }));
    const qs = await probes(file);
    expect(qs.find((q) => q.fill['employees.name'] === 'Chen Wei')?.truth).toEqual(['Engineering']);
  });

  it('perturbations are deterministic', async () => {
    expect(perturb('Which department does Alice Martin work in?', 'typo')).toBe('Which depatrment does Alice Martin work in?');
    // The entity asked about is never the word that gets the typo.
    expect(perturb('Where does Bartholomew work?', 'typo', ['Bartholomew'])).toBe('Wehre does Bartholomew work?');
    expect(perturb('Which department?', 'lowercase')).toBe('which department?');
  });

  const BAD: Array<[string, Record<string, unknown>, RegExp, string]> = [
    ['unknown table', { templates: [{ ...DEPARTMENT, sql: "SELECT department FROM staff WHERE name = '[staff.name]'", texts: ['Where is [staff.name]?'] }] }, /template "employee_department": key "sql": unknown table "staff"/, 'templates.employee_department.sql'],
    ['unknown column', { templates: [{ ...DEPARTMENT, sql: "SELECT department FROM employees WHERE name = '[employees.fullname]'", texts: ['Where is [employees.fullname]?'] }] }, /unknown column "fullname" of table "employees" .*columns: name, department, hired/, 'templates.employee_department.sql'],
    ['placeholder missing from a text', { templates: [{ ...DEPARTMENT, texts: ['Which department does [employees.name] work in?', 'Which department is that?'] }] }, /key "texts.1" lacks placeholder \[employees.name\]/, 'templates.employee_department.texts.1'],
    ['non-SELECT', { templates: [{ ...DEPARTMENT, sql: "DELETE FROM employees WHERE name = '[employees.name]'" }] }, /key "sql" must be one SELECT statement/, 'templates.employee_department.sql'],
    ['two statements', { templates: [{ ...DEPARTMENT, sql: "SELECT 1; DELETE FROM employees WHERE name = '[employees.name]'" }] }, /must be one SELECT statement/, 'templates.employee_department.sql'],
    ['failing SQL', { templates: [{ ...DEPARTMENT, sql: "SELECT departmnt FROM employees WHERE name = '[employees.name]'" }] }, /key "sql" fails: no such column: departmnt/, 'templates.employee_department.sql'],
    ['empty result', { templates: [{ ...DEPARTMENT, sql: "SELECT department FROM employees WHERE name = '[employees.name]' AND hired > 3000" }] }, /returned no row for \{"employees.name":/, 'templates.employee_department.sql'],
    ['bad answerPath', { target: { ...TARGET, answerPath: '' } }, /key "target.answerPath"/, 'target.answerPath'],
    ['template name with a newline', { templates: [{ ...DEPARTMENT, name: 'employee\ndepartment' }] }, /key "templates.0.name": no control characters/, 'templates.0.name'],
    ['template name over 100 characters', { templates: [{ ...DEPARTMENT, name: 'x'.repeat(101) }] }, /key "templates.0.name": at most 100 characters/, 'templates.0.name'],
  ];
  for (const [name, suite, message, key] of BAD) {
    it(`bad suite: ${name} stops with an error naming the template and the key`, async () => {
      let err: unknown;
      try {
        await probes(suiteFile(name.replace(/\W/g, '_'), { templates: [DEPARTMENT], ...suite }));
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(SuiteError);
      expect((err as SuiteError).message).toMatch(message);
      expect((err as SuiteError).keys).toEqual([key]);
      expect((err as SuiteError).code).toBe('RAGWATCH_PROBE_SUITE_INVALID');
    });
  }

  it('${VAR} in target headers comes from the environment; a missing one is named', async () => {
    const file = suiteFile('env', { templates: [DEPARTMENT], target: { ...TARGET, headers: { authorization: 'Bearer ${ACME_TOKEN}' } } });
    expect(loadProbeSuite(file, { ACME_TOKEN: 't0k' }).suite.target.headers.authorization).toBe('Bearer t0k');
    expect(() => loadProbeSuite(file, {})).toThrow(/key "target.headers.authorization": environment variable ACME_TOKEN is not set/);
  });
});

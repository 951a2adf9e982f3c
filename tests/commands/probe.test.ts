/**
 * `ragwatch probe list` on the shipped example suite, and a bad suite's exit code and message.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ProbeQuery } from '../../src/probes/types.ts';
import { BIN, ROOT } from '../helpers/process.ts';

const run = (...args: string[]) => spawnSync(process.execPath, [BIN, 'probe', ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_NO_WARNINGS: '1' } });

describe('ragwatch probe list', () => {
  it('lists the example suite: 8 templates, every group with its wordings and perturbations, truth from the facts', () => {
    const r = run('list', '--json', 'config/probes/example/suite.yaml');
    expect(r.status, r.stderr).toBe(0);
    const qs = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as ProbeQuery);
    expect(new Set(qs.map((q) => q.template)).size).toBe(8);
    const obrien = qs.filter((q) => q.template === 'employee_department' && q.fill['employees.name'] === "Brian O'Hara");
    expect(obrien.map((q) => q.variant)).toEqual(['text:0', 'text:1', 'text:2', 'typo', 'lowercase']);
    expect(obrien.every((q) => q.truth[0] === 'Legal')).toBe(true);
    expect(qs.find((q) => q.template === 'product_price' && q.fill['products.name'] === 'Shipwise Fleet')?.truth).toEqual(['249']);
    const text = run('list', 'config/probes/example/suite.yaml');
    expect(text.stdout).toMatch(/212 queries in 51 groups from 8 templates \(suite acme_example\)/);
  });

  it('a bad suite exits 2 naming the template and the key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ragwatch-probe-cli-'));
    try {
      const file = join(dir, 'bad.yaml');
      writeFileSync(file, JSON.stringify({ suite: 'bad', csv: join(ROOT, 'config/probes/example/facts'), target: { url: 'http://127.0.0.1:1/ask', answerPath: 'answer' }, templates: [{ name: 'x', sql: 'SELECT title FROM employees', texts: ['Who is [employees.name]?'] }] }));
      const r = run('list', file);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/template "x": key "texts.0" has placeholder \[employees.name\] that its sql does not use/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

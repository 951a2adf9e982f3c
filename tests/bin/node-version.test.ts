/**
 * The start's own Node check (issue 47): npm only warns about `engines`, so bin/ragwatch.js refuses a
 * Node older than package.json's engines.node with one clear line, before it loads any TypeScript.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIN_NODE, nodeVersionProblem } from '../../bin/node-version.js';
import { BIN, ROOT } from '../helpers/process.ts';

describe('the Node.js check at start', () => {
  it('is the package’s engines.node, and npm leaves it to this check in the clone (devEngines onFail ignore)', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string }; devEngines: { runtime: { name: string; version: string; onFail: string } } };
    expect(pkg.engines.node).toBe(`>=${MIN_NODE}`);
    expect(pkg.devEngines.runtime).toEqual({ name: 'node', version: `>=${MIN_NODE}`, onFail: 'ignore' });
  });

  it('refuses Node < 22.18 with a message that says what to do, accepts 22.18 and newer', () => {
    for (const old of ['20.20.2', 'v20.20.2', '22.17.9', '18.0.0', '22.0.0']) {
      const problem = nodeVersionProblem(old);
      expect(problem, old).toContain(`ragwatch needs Node.js >= ${MIN_NODE}; this is Node.js ${old.replace(/^v/, '')}.`);
      expect(problem, old).toContain('npm start');
    }
    for (const ok of ['22.18.0', '22.23.3', 'v22.18.1', '23.0.0', '24.11.0', '26.0.0']) expect(nodeVersionProblem(ok), ok).toBeUndefined();
    expect(nodeVersionProblem(process.versions.node)).toBeUndefined();
  });

  // The machine's own Node, when it is an older one (the system Node 20 beside the project's Node 22).
  const system = ['/usr/bin/node', '/usr/local/bin/node'].find((p) => existsSync(p) && nodeVersionProblem(spawnSync(p, ['-p', 'process.versions.node'], { encoding: 'utf8' }).stdout.trim()) !== undefined);
  it.skipIf(!system)('bin/ragwatch.js on an older Node exits 1 with that line and nothing else', () => {
    const r = spawnSync(system!, [BIN, 'start'], { encoding: 'utf8', env: { ...process.env, RAGWATCH_CONFIG: '' }, timeout: 20_000 });
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toMatch(/^ragwatch needs Node\.js >= 22\.18\.0; this is Node\.js \d+\.\d+\.\d+\. In a clone, run it through npm/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('');
  });
});

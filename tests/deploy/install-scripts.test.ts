/**
 * `npm install` is quiet and explicit about install scripts: every dependency that has one is
 * approved or denied in package.json's `allowScripts` (npm ≥ 11 warns about the rest and skips them).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/process.ts';

const npmMajor = Number(spawnSync('npm', ['--version'], { encoding: 'utf8' }).stdout.split('.')[0]);

describe.skipIf(!(npmMajor >= 11))('install scripts', () => {
  it('npm install-scripts ls finds no dependency whose install script is not reviewed', () => {
    const r = spawnSync('npm', ['install-scripts', 'ls', '--json'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ allowScripts: [] });
  });

  it('only the node runtime package may run one; tree-sitter (a transitive dev dependency with prebuilds) may not', () => {
    const { allowScripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { allowScripts: Record<string, boolean> };
    expect(allowScripts).toMatchObject({ node: true, 'tree-sitter': false });
  });
});

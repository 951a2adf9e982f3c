/**
 * `ragwatch release compare` (the CLI as a process: exit codes are the contract): worse (exit 1) on an
 * hour of a broken 5 % canary, inconclusive (exit 3) while there are too few answers, no_worse (exit 0)
 * on hours of an identical one — and never worse on an identical canary over 30 seeds (in process);
 * `--json` has the documented shape; bad arguments exit 2 naming what is wrong.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { compareRecords } from '../../src/slices/gate.ts';
import { sliceSettingsFromConfig } from '../../src/slices/settings.ts';
import { realStream, type Traffic } from '../helpers/real-scores.ts';
import { BIN, ROOT } from '../helpers/process.ts';

const START = Date.UTC(2026, 3, 1);
const dir = mkdtempSync(join(tmpdir(), 'ragwatch-release-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An hour (or `minutes`) of a canary taking `share` of 0.2 answers/s, `bad` of its answers hallucinated (v1: 5 %). */
const canary = (share: number, bad: number): Traffic => ({ ratePerS: 0.2, routes: ['/a', '/b'], release: (u) => (u < share ? 'v2' : 'v1'), hallucinated: (r) => (r === 'v2' ? bad : 0.05) });

function file(name: string, seed: number, minutes: number, t: Traffic): string {
  const path = join(dir, name);
  writeFileSync(path, realStream(seed, START, minutes, t).map((r) => JSON.stringify(r.record)).join('\n') + '\n');
  return path;
}

function compare(path: string, ...extra: string[]) {
  const r = spawnSync(process.execPath, [BIN, 'release', 'compare', path, '--baseline', 'v1', '--candidate', 'v2', ...extra], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, RAGWATCH_LOG_LEVEL: 'silent' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('ragwatch release compare', () => {
  it('worse, exit 1, on an hour of a broken 5 % canary; --json has the documented shape', () => {
    const r = compare(file('broken.jsonl', 1, 60, canary(0.05, 1)), '--json');
    expect(r.code, r.stderr).toBe(1);
    const out = JSON.parse(r.stdout) as { verdict: string; baseline: string; candidate: string; metrics: Array<Record<string, unknown>> };
    expect(out).toMatchObject({ verdict: 'worse', baseline: 'v1', candidate: 'v2' });
    const gl = out.metrics.find((m) => m.metric === 'grounding_lexical')!;
    expect(gl).toMatchObject({ judge: 'embedded', verdict: 'worse', baseline: { n: expect.any(Number), flagged: expect.any(Number) }, candidate: { n: expect.any(Number), flagged: expect.any(Number) }, statistic: { margin: 0.05 } });
    expect((gl.candidate as { n: number }).n).toBeGreaterThan(20);
  });

  it('inconclusive, exit 3, on ten minutes of a canary (too few answers); the text names the verdict per metric', () => {
    const r = compare(file('short.jsonl', 2, 10, canary(0.05, 0.05)));
    expect(r.code, r.stderr).toBe(3);
    expect(r.stdout).toMatch(/^v2 vs v1: inconclusive \(answers from .* to .*\)\n {2}grounding_lexical \(embedded\): inconclusive/);
  });

  it('no_worse, exit 0, on twelve hours of an identical 20 % canary', () => {
    const r = compare(file('same.jsonl', 3, 12 * 60, canary(0.2, 0.05)));
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^v2 vs v1: no_worse/);
  });

  it('exits 2 naming the missing argument or the unreadable file', () => {
    const missing = spawnSync(process.execPath, [BIN, 'release', 'compare', join(dir, 'broken.jsonl'), '--baseline', 'v1'], { cwd: ROOT, encoding: 'utf8' });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('--candidate');
    const nofile = compare(join(dir, 'absent.jsonl'));
    expect(nofile.code).toBe(2);
    expect(nofile.stderr).toContain('cannot read');
  });

  it('is never worse on an hour of an identical 5 % or 10 % canary (30 seeds each, in process)', () => {
    const config = loadConfig({ env: {} });
    const { rules, releases } = sliceSettingsFromConfig(config.alerts);
    const verdicts: string[] = [];
    for (const share of [0.05, 0.1]) {
      for (let seed = 1; seed <= 30; seed++) {
        const records = realStream(100 + seed, START, 60, canary(share, 0.05)).map((r) => r.record);
        verdicts.push(compareRecords(records, rules, (rule, _j, score) => (score <= rule.cut ? 1 : 0), { baseline: 'v1', candidate: 'v2' }, releases).verdict);
      }
    }
    expect(verdicts).not.toContain('worse');
    expect(verdicts.filter((v) => v === 'inconclusive').length).toBeGreaterThan(30);
  });
});

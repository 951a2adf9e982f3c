/**
 * A configured evaluator in the offline tools: `ragwatch alerts backtest` pages on a drop of it, naming
 * it; `ragwatch release compare` compares it between releases. Both read it as any metric, through the
 * registry of the configuration (without the evaluator, its scores are counted as unknown and left out).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { backtest } from '../../src/roles/backtest.ts';
import type { ScoreRecord } from '../../src/triplet.ts';
import { BIN, ROOT } from '../helpers/process.ts';
import { rng } from '../helpers/rng.ts';
import { WORKED_EXAMPLES } from './worked-examples.ts';

const dir = mkdtempSync(join(tmpdir(), 'ragwatch-evaluator-offline-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const configFile = join(dir, 'ragwatch.yaml');
writeFileSync(configFile, stringify({ metrics: { processMetrics: false }, evaluators: WORKED_EXAMPLES }));
const config = loadConfig({ env: {}, file: configFile });

const START = Date.UTC(2026, 3, 1);

/** One check verdict (cites_source: 1 cited, 0 not) of an answer at `ms`, of `release`. */
function verdict(ms: number, cited: boolean, release = 'v1'): ScoreRecord {
  return {
    tripletId: `t${ms}`,
    traceId: 'a'.repeat(32),
    service: 'shop',
    release,
    stratum: 'all',
    weight: 1,
    timestamp: new Date(ms).toISOString(),
    judge: { kind: 'embedded' },
    scores: { cites_source: cited ? 1 : 0 },
    skipped: {},
    details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] },
    diagnosis: [],
    usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 },
  };
}

/** `minutes` of answers at `perMinute`, each uncited with probability `uncited(minute)` (seeded). */
function stream(seed: number, minutes: number, perMinute: number, uncited: (minute: number) => number, release: (u: number) => string = () => 'v1'): ScoreRecord[] {
  const random = rng(seed);
  const out: ScoreRecord[] = [];
  for (let m = 0; m < minutes; m++) {
    for (let i = 0; i < perMinute; i++) {
      const r = release(random());
      out.push(verdict(START + m * 60_000 + Math.floor((i / perMinute) * 60_000), random() >= uncited(m), r));
    }
  }
  return out;
}

describe('alerts backtest on a configured evaluator', () => {
  // Three hours at 3 % uncited, then an hour at 40 %: a drop of cites_source (page severity: change alerts too).
  const records = stream(7, 240, 12, (m) => (m >= 180 ? 0.4 : 0.03));

  it('pages on the drop, naming the evaluator (change page, then the threshold alert)', async () => {
    const report = await backtest(config, records.map((r) => JSON.stringify(r)));
    expect(report.unknownMetrics).toEqual({});
    const drop = report.alerts.find((a) => a.name === 'RagwatchCitesSourceDrop');
    const low = report.alerts.find((a) => a.name === 'RagwatchCitesSourceLow');
    expect(drop).toMatchObject({ metric: 'cites_source', kind: 'change', severity: 'page', service: 'shop', judge: 'embedded' });
    expect(low).toMatchObject({ metric: 'cites_source', kind: 'threshold', severity: 'page' });
    const shift = START + 180 * 60_000;
    expect(Date.parse(drop!.firings[0]!.start)).toBeGreaterThanOrEqual(shift);
    expect(Date.parse(drop!.firings[0]!.start) - shift).toBeLessThan(15 * 60_000);
    // Nothing fired in the healthy hours.
    for (const a of report.alerts) expect(Date.parse(a.firings[0]!.start), a.name).toBeGreaterThanOrEqual(shift);
  });

  it('through the CLI: the configuration’s registry knows the evaluator; without it, its scores are unknown and left out', () => {
    const file = join(dir, 'scores.jsonl');
    const some = records.slice(0, 200);
    writeFileSync(file, `${some.map((r) => JSON.stringify(r)).join('\n')}\n`);
    const run = (...args: string[]) => spawnSync(process.execPath, [BIN, 'alerts', 'backtest', file, '--json', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    const withIt = JSON.parse(run('-c', configFile).stdout) as { records: number; unknownMetrics: Record<string, number> };
    expect(withIt).toMatchObject({ records: 200, unknownMetrics: {} });
    const without = JSON.parse(run().stdout) as { alerts: unknown[]; unknownMetrics: Record<string, number> };
    expect(without.alerts).toEqual([]);
    expect(without.unknownMetrics).toEqual({ cites_source: 200 });
  }, 240_000);
});

describe('release compare on a configured evaluator', () => {
  it('worse (exit 1) when the candidate cites no source in a third of its answers; no_worse (exit 0) when it cites as the baseline does', () => {
    const write = (name: string, candidateUncited: number) => {
      const random = rng(11);
      const records: ScoreRecord[] = [];
      for (let m = 0; m < 12 * 60; m++) {
        for (let i = 0; i < 10; i++) {
          const release = random() < 0.2 ? 'v2' : 'v1';
          records.push(verdict(START + m * 60_000 + i * 6_000, random() >= (release === 'v2' ? candidateUncited : 0.03), release));
        }
      }
      const file = join(dir, name);
      writeFileSync(file, `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
      return file;
    };
    const compare = (file: string) => spawnSync(process.execPath, [BIN, 'release', 'compare', file, '--baseline', 'v1', '--candidate', 'v2', '--json', '-c', configFile], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    const worse = compare(write('worse.jsonl', 0.33));
    expect(worse.status, worse.stderr).toBe(1);
    const out = JSON.parse(worse.stdout) as { verdict: string; metrics: Array<{ metric: string; judge: string; verdict: string }> };
    expect(out.verdict).toBe('worse');
    expect(out.metrics.find((m) => m.metric === 'cites_source')).toMatchObject({ judge: 'embedded', verdict: 'worse' });
    const same = compare(write('same.jsonl', 0.03));
    expect(same.status, same.stdout + same.stderr).toBe(0);
    expect((JSON.parse(same.stdout) as { metrics: Array<{ metric: string; verdict: string }> }).metrics.find((m) => m.metric === 'cites_source')?.verdict).toBe('no_worse');
  }, 240_000);
});

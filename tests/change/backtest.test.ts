/**
 * `ragwatch alerts backtest`: the replay gives the live evaluators' firings on the same records, and bad
 * input is named by line while everything else is replayed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { backtest, type BacktestReport } from '../../src/roles/backtest.ts';
import { QualityMonitor } from '../../src/roles/quality.ts';
import { createInstruments, instrumentsOptionsFromConfig } from '../../src/telemetry/instruments.ts';
import { BIN } from '../helpers/process.ts';
import { scoreRecords } from './simulate.ts';

const config = loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, alerts: { metrics: { groundedness: { threshold: 0.8, severity: 'page' } } } } });
// Three healthy hours, 40 minutes with 40 % of answers at 0.2 (a change page, then the threshold alert), an hour healthy again.
const records = scoreRecords(17, 280, 0.2, (m) => (m >= 180 && m < 220 ? 0.4 : 0.05), 0.2);
const dir = mkdtempSync(join(tmpdir(), 'ragwatch-backtest-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The live path: a scoring process's consumers fed at the records' times, both evaluators on their interval. */
function live(): Map<string, string[]> {
  let now = Date.parse(records[0]!.timestamp);
  const quality = new QualityMonitor({ config, instruments: createInstruments(instrumentsOptionsFromConfig(config)), now: () => now });
  const step = config.alerts.evaluationIntervalMs;
  const starts = new Map<string, string[]>();
  const firing = new Set<string>();
  const evaluate = () => {
    const current = new Set<string>();
    for (const a of quality.evaluator.evaluate()) if (a.state === 'firing') current.add(a.name);
    for (const c of quality.change.evaluate()) current.add(c.tier === 'page' ? 'RagwatchGroundednessDrop' : 'RagwatchGroundednessDrift');
    for (const name of current) if (!firing.has(name)) starts.set(name, [...(starts.get(name) ?? []), new Date(now).toISOString()]);
    firing.clear();
    for (const name of current) firing.add(name);
  };
  let next = Math.floor(now / step) * step + step;
  for (const r of records) {
    const ms = Date.parse(r.timestamp);
    while (next <= ms) {
      now = next;
      evaluate();
      next += step;
    }
    now = ms;
    quality.onRecord(r);
  }
  now = next;
  evaluate();
  return starts;
}

describe('alerts backtest', () => {
  it('gives the same firings as the live evaluators on the same records (threshold and change)', async () => {
    const report = await backtest(config, records.map((r) => JSON.stringify(r)));
    expect(report.records).toBe(records.length);
    const replayed = new Map(report.alerts.map((a) => [a.name, a.firings.map((f) => f.start)]));
    const expected = live();
    expect(replayed).toEqual(expected);
    // The scenario means something: a change page first, the threshold alert after its `for`, both once.
    const drop = report.alerts.find((a) => a.name === 'RagwatchGroundednessDrop')!;
    const threshold = report.alerts.find((a) => a.name === 'RagwatchGroundednessLow')!;
    expect(drop).toMatchObject({ kind: 'change', severity: 'page', service: 'rag', judge: 'llm' });
    expect(threshold).toMatchObject({ kind: 'threshold', severity: 'page' });
    expect(drop.firings).toHaveLength(1);
    expect(threshold.firings).toHaveLength(1);
    const shift = Date.parse(records[0]!.timestamp) + 180 * 60_000;
    expect(Date.parse(drop.firings[0]!.start) - shift).toBeLessThan(10 * 60_000);
    expect(Date.parse(threshold.firings[0]!.start)).toBeGreaterThan(Date.parse(drop.firings[0]!.start));
  });

  it('ragwatch alerts backtest: names bad lines, leaves out unknown metrics, replays out-of-order records in time order (--json and table)', () => {
    const lines = records.map((r) => JSON.stringify(r));
    // Swap two records (out of order), break one line, add an unknown metric to another.
    [lines[10], lines[11]] = [lines[11]!, lines[10]!];
    lines[20] = '{"not": "a score record"';
    lines[30] = JSON.stringify({ ...records[30]!, scores: { ...records[30]!.scores, made_up_metric: 0.1 } });
    const file = join(dir, 'scores.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);
    const json = spawnSync(process.execPath, [BIN, 'alerts', 'backtest', file, '--json'], { encoding: 'utf8', timeout: 60_000 });
    expect(json.status, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout) as BacktestReport;
    expect(report.records).toBe(records.length - 1);
    expect(report.rejected).toEqual([{ line: 21, reason: expect.stringMatching(/^not JSON: /) }]);
    expect(report.unknownMetrics).toEqual({ made_up_metric: 1 });
    expect(report.alerts.map((a) => a.name).sort()).toEqual(['RagwatchGroundednessDrop', 'RagwatchGroundednessLow']);
    const table = spawnSync(process.execPath, [BIN, 'alerts', 'backtest', file], { encoding: 'utf8', timeout: 60_000 });
    expect(table.status, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^\d+ records replayed from \S+ to \S+; 2 alert instances fired\n/);
    expect(table.stdout).toMatch(/RagwatchGroundednessDrop\s+change\s+page\s+rag\s+llm\s+1\s/);
    expect(table.stdout).toContain('line 21: not JSON');
    // --html: one self-contained page, a chart per alerted series with a band per firing.
    const html = join(dir, 'backtest.html');
    const drawn = spawnSync(process.execPath, [BIN, 'alerts', 'backtest', file, '--html', html], { encoding: 'utf8', timeout: 60_000 });
    expect(drawn.status, drawn.stderr).toBe(0);
    const page = readFileSync(html, 'utf8');
    expect(page.match(/<svg /g)).toHaveLength(1);
    expect(page.match(/<rect [^>]*><title>RagwatchGroundedness(Drop|Low) /g)).toHaveLength(2);
    expect(page).not.toMatch(/<script|https?:\/\//);
    const bad = spawnSync(process.execPath, [BIN, 'alerts', 'backtest', join(dir, 'missing.jsonl')], { encoding: 'utf8', timeout: 60_000 });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('missing.jsonl');
  }, 60_000);
});

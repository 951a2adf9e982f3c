/**
 * `ragwatch alerts backtest` replays slices and release comparisons with the same evaluators as a
 * scoring process: a broken canary's page carries `"slice": {"release": "v2"}` in `--json`, the text
 * names it, and the release's verdict turns `worse`; an identical canary gives no slice alert and is
 * never `worse`.
 */
import { describe, expect, it } from 'vitest';
import { formatBacktest } from '../../src/commands/alerts.ts';
import { replay, type BacktestReport } from '../../src/roles/backtest.ts';
import { canaryTraffic, sliceConfig, stream } from './simulate.ts';

function run(bad: number): BacktestReport {
  const records = stream(3, 8 * 60, canaryTraffic(360, 0.1, bad));
  return { ...replay(sliceConfig(), records), rejected: [], rejectedMore: 0, unknownMetrics: {} };
}

describe('backtest with slices', () => {
  it('a broken 10 % canary: a slice alert naming release v2 (JSON and text) and a worse verdict', () => {
    const report = run(1);
    const slice = report.alerts.filter((a) => a.kind === 'slice');
    expect(slice.map((a) => a.slice)).toContainEqual({ release: 'v2' });
    const first = slice.find((a) => a.slice?.release === 'v2')!;
    expect(first).toMatchObject({ name: 'RagwatchGroundingLexicalSliceDrop', metric: 'grounding_lexical', service: 'rag', severity: 'page' });
    expect(Date.parse(first.firings[0]!.start)).toBeGreaterThan(Date.UTC(2026, 0, 1, 6));
    expect(JSON.parse(JSON.stringify(report)).alerts.find((a: { kind: string }) => a.kind === 'slice').slice).toEqual({ release: 'v2' });
    const v2 = report.releases.find((r) => r.release === 'v2')!;
    expect(v2).toMatchObject({ service: 'rag', baseline: 'v1' });
    expect(v2.verdicts.map((v) => v.verdict)).toContain('worse');
    expect(formatBacktest(report)).toMatch(/RagwatchGroundingLexicalSliceDrop\s+slice\s+page\s+rag\s+release=v2/);
    expect(formatBacktest(report)).toMatch(/release v2 of rag vs v1: .*worse from/);
  });

  it('an identical canary: no slice alert, never worse', () => {
    const report = run(0.05);
    expect(report.alerts.filter((a) => a.kind === 'slice')).toEqual([]);
    expect(report.releases.flatMap((r) => r.verdicts.map((v) => v.verdict))).not.toContain('worse');
  });
});

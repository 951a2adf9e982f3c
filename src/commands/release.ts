/**
 * `ragwatch release compare SCORES.jsonl --baseline v1 --candidate v2`: the deploy gate offline —
 * compares two releases' flagged shares over the period both answered, metric by metric, and gives
 * one verdict with its exit code (docs/deploy.md, "Release gates").
 * @module
 */
import { scoreFileLines } from './score-file.ts';
import { parseArgs } from 'node:util';
import { applyMap } from '../calibration/fit.ts';
import { loadCalibrationFile } from '../calibration/load-file.ts';
import { loadConfig } from '../config/load.ts';
import { ConfigError } from '../errors.ts';
import { metricRegistryOf } from '../metric-registry.ts';
import { readScoreLines } from '../roles/backtest.ts';
import { compareRecords, type FlagOf, type ReleaseComparison } from '../slices/gate.ts';
import { sliceSettingsFromConfig } from '../slices/settings.ts';
import type { Command } from './types.ts';

/** Exit codes of the verdicts: worse fails a pipeline, inconclusive asks it to wait. */
export const VERDICT_EXIT = { no_worse: 0, worse: 1, inconclusive: 3 } as const;

const pct = (k: number, n: number) => (n > 0 ? `${((100 * k) / n).toFixed(1)} %` : '—');

/** The comparison as text: the verdict, then one line per metric. */
export function formatComparison(c: ReleaseComparison & { period: { from: string | null; to: string | null } }, margin: number): string {
  const lines = [`${c.candidate} vs ${c.baseline}: ${c.verdict}${c.period.from ? ` (answers from ${c.period.from} to ${c.period.to})` : ' (the two releases never answered in the same period)'}`];
  for (const m of c.metrics) {
    const s = m.statistic;
    lines.push(
      `  ${m.metric} (${m.judge}): ${m.verdict.padEnd(12)} baseline ${pct(m.baseline.flagged, m.baseline.n)} of ${m.baseline.n}, candidate ${pct(m.candidate.flagged, m.candidate.n)} of ${m.candidate.n}; ` +
        `difference ${(100 * s.diff).toFixed(1)} points [${(100 * s.low).toFixed(1)}, ${(100 * s.high).toFixed(1)}], margin ${(100 * margin).toFixed(1)}`,
    );
  }
  if (c.metrics.length === 0) lines.push('  no flagged-share metric has answers of either release');
  return `${lines.join('\n')}\n`;
}

/** The `release` command. */
export const releaseCommand: Command = {
  name: 'release',
  summary: 'release compare SCORES.jsonl --baseline V1 --candidate V2: deploy gate — worse (exit 1), no_worse (0) or inconclusive (3)',
  usage: `usage: ragwatch release compare SCORES.jsonl --baseline V1 --candidate V2 [--service S] [-c FILE] [--json]

  --baseline V1       the release serving now (the records' "release": the resource's service.version)
  --candidate V2      the release being rolled out
  --service S         only this service's records (default: all)
  -c, --config FILE   YAML configuration (default: $RAGWATCH_CONFIG, else embedded defaults): the
                      metrics compared are those with a change alert, each at its threshold;
                      alerts.releases sets the margin, the α of each test and the minimum answers
  --json              {verdict, baseline, candidate, period, metrics: [{metric, judge, baseline: {n,
                      flagged}, candidate: {n, flagged}, statistic: {diff, low, high, margin}, verdict}]}

Compares the share of answers each metric flags (at or below its threshold) of the two releases over
the period both answered — same hours, same traffic mix. Per metric: "worse" when the lower bound of
the difference (Newcombe's hybrid score interval at α = alerts.releases.alphaWorse, split over the
metrics) is above 0 and the rise is material (minRatio and minIncrease); "no_worse" when its upper
bound at α = alphaNoWorse is below the margin (a non-inferiority test); otherwise "inconclusive".
One verdict: worse if any metric is, no_worse if all are.
Exit 0 no_worse, 1 worse, 3 inconclusive, 2 on a bad configuration or file.`,
  async run(argv) {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { config: { type: 'string', short: 'c' }, json: { type: 'boolean', default: false }, baseline: { type: 'string' }, candidate: { type: 'string' }, service: { type: 'string' } } });
    if (positionals[0] !== 'compare' || positionals.length !== 2) throw new ConfigError(`usage: ragwatch release compare SCORES.jsonl --baseline V1 --candidate V2 (got: ${positionals.join(' ') || 'nothing'})`, []);
    if (!values.baseline || !values.candidate) throw new ConfigError('ragwatch release compare needs --baseline and --candidate (release names, as in the records\' "release")', []);
    if (values.baseline === values.candidate) throw new ConfigError(`--baseline and --candidate are the same release (${values.baseline})`, []);
    const config = loadConfig({ ...(values.config ? { file: values.config } : {}), offline: true });
    const file = positionals[1]!;
    const { records, rejected } = await readScoreLines(scoreFileLines(file), metricRegistryOf(config));
    const { rules, releases } = sliceSettingsFromConfig({ ...config.alerts, slices: { ...config.alerts.slices, enabled: true } });
    const models = config.calibration.file === undefined ? [] : loadCalibrationFile(config.calibration.file);
    const flagOf: FlagOf = (rule, judge, score) => {
      if (rule.on === 'raw') return score <= rule.cut ? 1 : 0;
      const model = models.find((m) => m.metric === rule.metric && m.judge === judge);
      return model ? 1 - applyMap(model.map, score) : undefined;
    };
    const result = compareRecords(records.map((r) => r.record), rules, flagOf, { baseline: values.baseline, candidate: values.candidate, ...(values.service ? { service: values.service } : {}) }, releases);
    for (const { line, reason } of rejected) process.stderr.write(`line ${line}: ${reason} (left out)\n`);
    process.stdout.write(values.json ? `${JSON.stringify(result)}\n` : formatComparison(result, releases.margin));
    process.exitCode = VERDICT_EXIT[result.verdict];
  },
};

/**
 * `ragwatch alerts backtest SCORES.jsonl`: replays score records through the alert evaluators on a
 * simulated clock and prints when each alert would have fired (docs/alerts.md).
 * @module
 */
import { writeFileSync } from 'node:fs';
import { scoreFileLines } from './score-file.ts';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/load.ts';
import { ConfigError } from '../errors.ts';
import { backtest, type BacktestReport } from '../roles/backtest.ts';
import { renderBacktestPage, type BacktestSeries } from '../server/backtest-page.ts';
import type { ScoreRecord } from '../triplet.ts';
import type { Command } from './types.ts';

const duration = (ms: number) => (ms >= 3_600_000 ? `${(ms / 3_600_000).toFixed(1)} h` : `${Math.round(ms / 60_000)} min`);

/** The report as a table: one row per alert instance. */
export function formatBacktest(r: BacktestReport): string {
  const lines = [`${r.records} records replayed${r.from ? ` from ${r.from} to ${r.to}` : ''}; ${r.alerts.length} alert instances fired`];
  if (r.alerts.length > 0) {
    const rows = r.alerts.map((a) => {
      const total = a.firings.reduce((t, f) => t + Date.parse(f.end) - Date.parse(f.start), 0);
      const slice = a.slice ? Object.entries(a.slice).map(([k, v]) => `${k}=${v}`).join(',') : '';
      return [a.name, a.kind, a.severity, a.service, slice, a.judge, String(a.firings.length), duration(total), a.firings[0]!.start];
    });
    const head = ['alert', 'kind', 'severity', 'service', 'slice', 'judge', 'firings', 'firing', 'first'];
    const width = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
    for (const row of [head, ...rows]) lines.push(row.map((c, i) => c.padEnd(width[i]!)).join('  ').trimEnd());
  }
  for (const rel of r.releases) lines.push(`release ${rel.release} of ${rel.service} vs ${rel.baseline}: ${rel.verdicts.map((v) => `${v.verdict} from ${v.since}`).join(', ')}`);
  for (const { line, reason } of r.rejected) lines.push(`line ${line}: ${reason} (not replayed)`);
  if (r.rejectedMore > 0) lines.push(`… and ${r.rejectedMore} more lines not replayed`);
  for (const [metric, n] of Object.entries(r.unknownMetrics)) lines.push(`unknown metric "${metric}" in ${n} records: left out (the rest of each record replayed)`);
  return `${lines.join('\n')}\n`;
}

/** The `alerts` command. */
export const alertsCommand: Command = {
  name: 'alerts',
  summary: 'alerts backtest SCORES.jsonl: replay score records through the alert evaluators, print when each would have fired',
  usage: `usage: ragwatch alerts backtest SCORES.jsonl [-c FILE] [--json] [--html FILE]

  -c, --config FILE   YAML configuration (default: $RAGWATCH_CONFIG, else embedded defaults)
  --json              one JSON object: {records, from, to, alerts: [{name, metric, judge, service,
                      severity, kind, slice?, firings: [{start, end}]}], releases: [{service,
                      release, baseline, verdicts: [{verdict, since}]}], rejected, rejectedMore,
                      unknownMetrics}; a slice alert names its slice, e.g. "slice": {"release": "v2"}
  --html FILE         also draw each alerted series over time, its baseline and the firing bands
                      (one self-contained HTML file with SVG charts)

Replays score records (one JSON object a line, as "ragwatch score" prints them and the scores topic
carries them; "details" optional) in the order of their timestamp through the threshold, change,
burn-rate and slice alerts and the release comparisons of the configuration, on a simulated clock stepped at alerts.evaluationIntervalMs. Lines that
are not score records are reported with their number and left out; nothing else is lost. Nothing is
notified. Exit 0 (also when alerts fired), 2 on a bad configuration or file.`,
  async run(argv) {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { config: { type: 'string', short: 'c' }, json: { type: 'boolean', default: false }, html: { type: 'string' } } });
    if (positionals[0] !== 'backtest' || positionals.length !== 2) throw new ConfigError(`usage: ragwatch alerts backtest SCORES.jsonl [-c FILE] [--json] (got: ${positionals.join(' ') || 'nothing'})`, []);
    const config = loadConfig({ ...(values.config ? { file: values.config } : {}), offline: true });
    const file = positionals[1]!;
    let replayed: ReadonlyArray<{ ms: number; record: ScoreRecord }> = [];
    const report = await backtest(config, scoreFileLines(file), values.html ? (r) => (replayed = r) : undefined);
    if (values.html) {
      const series = new Map<string, BacktestSeries>();
      for (const a of report.alerts) {
        const key = `${a.metric}\u0000${a.judge}\u0000${a.service}`;
        const s = series.get(key) ?? { metric: a.metric, judge: a.judge, service: a.service, firings: [] };
        s.firings.push(...a.firings.map((f) => ({ ...f, name: a.name, kind: a.kind, severity: a.severity })));
        series.set(key, s);
      }
      const cuts = Object.fromEntries(Object.entries(config.alerts.metrics).map(([m, a]) => [m, a.threshold]));
      try {
        writeFileSync(values.html, renderBacktestPage(replayed, [...series.values()], cuts));
      } catch (err) {
        throw new ConfigError(`cannot write ${values.html}: ${(err as Error).message}`, []);
      }
    }
    process.stdout.write(values.json ? `${JSON.stringify(report)}\n` : formatBacktest(report));
  },
};

/**
 * `ragwatch probe list SUITE.yaml`: the ground-truth probe queries a suite generates, with their
 * answers, asking nothing (docs/probes.md).
 * @module
 */
import { parseArgs } from 'node:util';
import { loadProbeSuite } from '../probes/load-suite.ts';
import { ConfigError } from '../errors.ts';
import { generateProbes, openFacts } from '../probes/generate.ts';
import { judgeAudit } from '../probes/audit.ts';
import type { JudgeAuditRow } from '../probes/types.ts';
import { runProbes, summarize, type ProbeOutcome, type ProbeReport } from '../probes/runner.ts';
import { createEvaluators } from '../evaluators/create.ts';
import { scoreProbeAnswers } from '../probes/score-answers.ts';
import { createRedactor } from '../capture/redaction/redact-outcome.ts';
import { loadConfig } from '../config/load.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import { createJudgeMatch, needsJudgeMatch } from '../probes/judge-match.ts';
import { createInstruments } from '../telemetry/instruments.ts';
import { createJudge } from '../judges/create.ts';
import type { Command } from './types.ts';

export const probeCommand: Command = {
  name: 'probe',
  summary: 'ground-truth probes: "probe list" prints the generated questions and answers, "probe run" asks them and reports accuracy, R and failures by module',
  usage: `usage: ragwatch probe list [--json] SUITE.yaml
       ragwatch probe run [--json] [-c FILE] [--min-accuracy X] [--min-robustness X] SUITE.yaml

  list              every generated query (templates × fill-ins × wordings and perturbations) with its
                    ground truth, asking nothing; exit 2 with the template and key named when the suite is bad
  run               asks the service every query (within limits.concurrency and limits.perMinute) and
                    reports outcomes, accuracy, robustness R, gap / robust / non-robust groups per
                    template and failures by module; exit 1 below a minimum (a CI quality gate)
  --json            list: one JSON object per query; run: one report object
  -c, --config FILE run: ragwatch configuration — the judge that scores the answers for the judge
                    audit (answers with sources only), the alert thresholds it audits, and the LLM
                    endpoint (judge.baseUrl) that grades "match: judge" templates
  --min-accuracy    run: exit 1 when accuracy (correct / answered) is below X
  --min-robustness  run: exit 1 when robustness R is below X`,
  async run(argv) {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean', default: false }, config: { type: 'string', short: 'c' }, 'min-accuracy': { type: 'string' }, 'min-robustness': { type: 'string' } } });
    const [sub, file] = positionals;
    if ((sub !== 'list' && sub !== 'run') || file === undefined) throw new ConfigError('probe: usage: ragwatch probe list|run [--json] SUITE.yaml', []);
    const minimum = (flag: 'min-accuracy' | 'min-robustness') => {
      const v = values[flag];
      if (v === undefined) return undefined;
      const n = Number(v);
      if (!(n >= 0 && n <= 1)) throw new ConfigError(`probe: --${flag} must be a number in [0,1], got "${v}"`, []);
      return n;
    };
    const minAccuracy = minimum('min-accuracy');
    const minRobustness = minimum('min-robustness');
    const { suite, facts } = loadProbeSuite(file);
    const db = await openFacts(facts);
    let queries;
    try {
      queries = generateProbes(suite, db);
    } finally {
      db.close();
    }
    if (sub === 'run') {
      const config = loadConfig(values.config ? { file: values.config } : {});
      const outcomes = await runProbes(suite, queries, needsJudgeMatch(suite) ? { judgeMatch: createJudgeMatch(config, suite, file) } : {});
      const report = summarize(suite.suite, outcomes, await audit(outcomes, config));
      process.stdout.write(values.json ? `${JSON.stringify(report)}\n` : formatReport(report));
      const low = (v: number | null, min: number | undefined) => min !== undefined && (v === null || v < min);
      if (low(report.accuracy, minAccuracy) || low(report.robustness, minRobustness)) {
        process.stderr.write(`ragwatch probe: below the minimum (accuracy ${report.accuracy?.toFixed(3) ?? 'n/a'}, robustness ${report.robustness?.toFixed(3) ?? 'n/a'})\n`);
        process.exitCode = 1;
      }
      return;
    }
    if (values.json) {
      for (const q of queries) process.stdout.write(`${JSON.stringify(q)}\n`);
      return;
    }
    let group = '';
    for (const q of queries) {
      if (q.group !== group) {
        group = q.group;
        process.stdout.write(`\n${q.template} ${JSON.stringify(q.fill)} → ${q.truth.map((t) => JSON.stringify(t)).join(', ')} (${q.match})\n`);
      }
      process.stdout.write(`  ${q.variant.padEnd(10)} ${q.query}\n`);
    }
    const groups = new Set(queries.map((q) => q.group)).size;
    process.stdout.write(`\n${queries.length} queries in ${groups} groups from ${suite.templates.length} templates (suite ${suite.suite})\n`);
  },
};

const pct = (v: number | null) => (v === null ? 'n/a' : `${(v * 100).toFixed(1)} %`);

/** The readable report of a run. */
export function formatReport(r: ProbeReport): string {
  const lines = [
    `suite ${r.suite}: ${r.queries} queries — correct ${r.outcomes.correct}, wrong ${r.outcomes.wrong}, abstained ${r.outcomes.abstained}, error ${r.outcomes.error}`,
    `accuracy ${pct(r.accuracy)}   robustness R ${pct(r.robustness)}   groups: ${r.groups.robust} robust, ${r.groups.non_robust} non-robust, ${r.groups.gap} gap`,
    `failures by module: retrieval ${r.failures.retrieval}, generator ${r.failures.generator}, unknown ${r.failures.unknown}`,
    ...(Object.keys(r.errors).length > 0 ? [`errors: ${Object.entries(r.errors).map(([k, n]) => `${k} ${n}`).join(', ')}`] : []),
    ...(r.demographic
      ? ['', `demographic variants (consistency ${pct(r.demographic.consistency)}: same outcome as the first wording): first wording ${pct(r.demographic.baseline.accuracy)}`, ...r.demographic.variants.map((v) => `  ${v.variant.padEnd(24)} accuracy ${pct(v.accuracy)}  gap ${v.gap === null ? 'n/a' : `${v.gap >= 0 ? '+' : ''}${(100 * v.gap).toFixed(1)} pts`}  (${v.answered} answered)`)]
      : []),
    ...(r.judges.length > 0 ? ['', 'judge audit ("score below threshold" as a detector of wrong answers)', ...r.judges.map((j) => `  ${`${j.metric} (${j.judge})`.padEnd(36)} precision ${pct(j.precision).padStart(7)}  recall ${pct(j.recall).padStart(7)}  flagged ${j.flagged}/${j.n}, wrong ${j.wrong}`)] : []),
    '',
    'template                     correct/total   robust  non-robust  gap',
    ...r.templates.map((t) => `${t.name.padEnd(28)} ${`${t.correct}/${t.total}`.padStart(13)}   ${String(t.groups.robust).padStart(6)}  ${String(t.groups.non_robust).padStart(10)}  ${String(t.groups.gap).padStart(3)}`),
  ];
  return `${lines.join('\n')}\n`;
}

/** Scores the answers with the configured judge and audits every metric that has an alert threshold. */
async function audit(outcomes: ProbeOutcome[], config: RagwatchConfig): Promise<JudgeAuditRow[]> {
  const judge = createJudge(config, { instruments: createInstruments({ processMetrics: false }), requireModel: true });
  await judge.init();
  try {
    const records = await scoreProbeAnswers(outcomes, judge, createRedactor(config.redaction), config.judge.concurrency, undefined, createEvaluators(config));
    const thresholds = Object.fromEntries(Object.entries(config.alerts.metrics).map(([m, a]) => [m, a!.threshold]));
    return judgeAudit(outcomes, records, thresholds);
  } finally {
    await judge.shutdown();
  }
}

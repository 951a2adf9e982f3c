/**
 * `ragwatch evaluators validate [-c FILE]`: checks the configured evaluators (errors name the key) and
 * lists them as metrics. `ragwatch evaluators try TRIPLETS.jsonl`: runs them on recorded triplets — what a
 * new criterion would have said before it goes live (docs/evaluators.md).
 * @module
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { createRedactor } from '../capture/redaction/redact-outcome.ts';
import { loadConfig } from '../config/load.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import { ConfigError } from '../errors.ts';
import { createEvaluators } from '../evaluators/create.ts';
import { createEvaluatorJudge } from '../judges/create.ts';
import { evaluatorData } from '../judges/llm/llm-evaluators.ts';
import { MAX_EVALUATORS, metricRegistryOf } from '../metric-registry.ts';
import { createInstruments } from '../telemetry/instruments.ts';
import { tripletSchema, type MetricScores, type MetricSkips, type ScoreDetails, type Triplet, type Usage } from '../triplet.ts';
import type { Command } from './types.ts';

const USAGE = `usage: ragwatch evaluators validate [-c FILE] [--json]
       ragwatch evaluators try TRIPLETS.jsonl [-c FILE] [-e PATH] [--evaluator NAME]... [--limit N]

  -c, --config FILE      YAML configuration (default: $RAGWATCH_CONFIG, else embedded defaults)
  -e, --evaluators PATH  try these evaluators (a YAML file, or a directory of them) instead of the
                         configuration's: a criterion before it goes into the config
      --evaluator NAME   only this evaluator (repeatable)
      --limit N          stop after N triplets
      --json             validate: print the evaluators as metric definitions (JSON)

validate: exit 0 when the configuration is valid, listing each evaluator as a metric; 2 with a message
naming every offending key otherwise.
try: reads one Triplet JSON a line ("-" = stdin; what "ragwatch score" reads and "ragwatch extract"
prints; a line {"triplet": {...}} as in label files works too), redacts it like captured traffic, runs
the checks and (with an LLM judge) the llm evaluators in one call per triplet — none of the built-in
metrics — and prints one JSON line per triplet ({line, tripletId, traceId, scores, skipped,
explanations}); a summary per evaluator (mean, answers, skips, against its alert threshold) and the
judge calls and tokens go to stderr. Exit 1 when a triplet could not be judged.`;

/** Evaluator lines of `validate`. */
function describeEvaluators(config: RagwatchConfig): string {
  const registry = metricRegistryOf(config);
  const lines = [`${config.evaluators.length} evaluator${config.evaluators.length === 1 ? '' : 's'} (at most ${MAX_EVALUATORS}) beside ${registry.list().length - config.evaluators.length} built-in metrics`];
  for (const e of config.evaluators) {
    const d = registry.get(e.name)!;
    const output = d.kind === 'categorical' ? `categorical (${d.labels!.map((l) => `${l.label}=${l.value}`).join(', ')})` : d.kind;
    const reads = e.kind === 'llm' ? `, reads ${(e.inputs ?? ['query', 'sources', 'response']).join(', ')}` : '';
    const alert = e.alerts.alert ? `alert below ${e.alerts.threshold} (${e.alerts.severity}, ${e.alerts.window}${e.alerts.on === 'calibrated' ? ', calibrated' : ''})` : 'no alert';
    lines.push(`  ${e.name.padEnd(28)} ${e.kind.padEnd(5)} ${output}${reads}; ${alert} — ${e.description}`);
  }
  const llm = config.evaluators.filter((e) => e.kind === 'llm').length;
  if (llm > 0 && config.judge.kind !== 'llm') lines.push(`warning: ${llm} llm evaluator${llm === 1 ? '' : 's'} with judge.kind=${config.judge.kind}: skipped (no_llm_judge) until an LLM judge is configured; the checks run with any judge`);
  return `${lines.join('\n')}\n`;
}

/** The triplet of one input line, or why it is not one. */
function tripletOf(text: string): Triplet | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'not valid JSON';
  }
  const wrapped = value !== null && typeof value === 'object' && 'triplet' in value ? (value as { triplet: unknown }).triplet : value;
  const parsed = tripletSchema.safeParse(wrapped);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  return `not a triplet: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`;
}

interface Tally {
  weighted: number;
  n: number;
  skipped: Record<string, number>;
}

async function tryEvaluators(config: RagwatchConfig, file: string, limit: number): Promise<void> {
  const checks = createEvaluators(config);
  if (!checks) throw new ConfigError('no evaluators to try: configure evaluators (or pass -e PATH)', ['evaluators']);
  const llm = createEvaluatorJudge(config, { instruments: createInstruments({ processMetrics: false }) });
  const redactor = createRedactor(config.redaction);
  const usage: Usage = { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 };
  const tallies = new Map(config.evaluators.map((e) => [e.name, { weighted: 0, n: 0, skipped: {} } as Tally]));
  let failures = 0;
  let seen = 0;
  let lineNo = 0;
  type Out = { line: number; result: string | { triplet: Triplet; scores: MetricScores; skipped: MetricSkips; explanations: NonNullable<ScoreDetails['evaluators']> } };
  const judgeOne = async (line: number, triplet: Triplet): Promise<Out> => {
    const redacted = redactor.redact(triplet);
    if (!redacted.ok) return { line, result: 'redaction failed; not judged' };
    const t = redacted.triplet;
    const c = checks.check(t);
    const verdicts = llm ? await llm.judge(evaluatorData(t), usage) : undefined;
    if (verdicts && !verdicts.ok) return { line, result: `${verdicts.error.code}: ${verdicts.error.message}` };
    const judged = verdicts ?? { scores: {}, skipped: {}, explanations: {} };
    const all = checks.forJudge({ scores: { ...c.scores, ...judged.scores }, skipped: { ...c.skipped, ...judged.skipped }, explanations: { ...c.explanations, ...judged.explanations } }, llm ? 'llm' : config.judge.kind, judged);
    return { line, result: { triplet: t, ...all } };
  };
  const print = (outs: Out[]) => {
    for (const { line, result } of outs) {
      if (typeof result === 'string') {
        failures++;
        process.stderr.write(`line ${line}: ${result}\n`);
        continue;
      }
      process.stdout.write(`${JSON.stringify({ line, tripletId: result.triplet.id, traceId: result.triplet.traceId, scores: result.scores, skipped: result.skipped, explanations: result.explanations })}\n`);
      for (const [name, tally] of tallies) {
        const v = result.scores[name];
        if (v !== undefined) {
          tally.weighted += v;
          tally.n++;
        }
        const why = result.skipped[name];
        if (why !== undefined) tally.skipped[why] = (tally.skipped[why] ?? 0) + 1;
      }
    }
  };
  const lines = createInterface({ input: file === '-' ? process.stdin : createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let window: Array<Promise<Out>> = [];
  try {
    for await (const text of lines) {
      lineNo++;
      if (text.trim() === '') continue;
      if (seen >= limit) break;
      seen++;
      const triplet = tripletOf(text);
      window.push(typeof triplet === 'string' ? Promise.resolve({ line: lineNo, result: triplet }) : judgeOne(lineNo, triplet));
      if (window.length >= config.judge.concurrency) print(await Promise.all(window.splice(0)));
    }
    print(await Promise.all(window));
    window = [];
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new ConfigError(`cannot read ${file}: ${(err as Error).message}`, []);
    throw err;
  }
  const summary = [`ragwatch evaluators try: ${seen} triplets, ${failures} not judged; llm evaluators ${llm ? `judged by ${config.judge.model} in ${usage.calls} calls, ${usage.inputTokens} input + ${usage.outputTokens} output tokens` : `skipped (judge.kind=${config.judge.kind})`}`];
  for (const e of config.evaluators) {
    const t = tallies.get(e.name)!;
    const mean = t.n > 0 ? t.weighted / t.n : undefined;
    const skips = Object.entries(t.skipped).map(([why, n]) => `${n} ${why}`).join(', ');
    const verdict = mean === undefined ? 'no score' : mean < e.alerts.threshold ? `BELOW its threshold ${e.alerts.threshold}${e.alerts.alert ? ` (would alert: ${e.alerts.severity})` : ''}` : `at or above its threshold ${e.alerts.threshold}`;
    summary.push(`  ${e.name.padEnd(28)} ${e.kind.padEnd(5)} mean ${mean === undefined ? '  –  ' : mean.toFixed(3)}  n=${t.n}${skips ? `  skipped: ${skips}` : ''}  ${verdict}`);
  }
  process.stderr.write(`${summary.join('\n')}\n`);
  if (failures > 0) process.exitCode = 1;
}

/** The `evaluators` command. */
export const evaluatorsCommand: Command = {
  name: 'evaluators',
  summary: 'evaluators validate | try TRIPLETS.jsonl: check the configured evaluators, or run them on recorded triplets',
  usage: USAGE,
  async run(argv) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { config: { type: 'string', short: 'c' }, evaluators: { type: 'string', short: 'e' }, evaluator: { type: 'string', multiple: true }, limit: { type: 'string' }, json: { type: 'boolean', default: false } },
    });
    const [sub, ...rest] = positionals;
    const overrides = values.evaluators !== undefined ? { evaluators: values.evaluators } : undefined;
    const loaded = loadConfig({ ...(values.config ? { file: values.config } : {}), ...(overrides ? { overrides } : {}), offline: true });
    const only = values.evaluator ?? [];
    for (const name of only) if (!loaded.evaluators.some((e) => e.name === name)) throw new ConfigError(`--evaluator ${name}: no such evaluator (configured: ${loaded.evaluators.map((e) => e.name).join(', ') || 'none'})`, ['--evaluator']);
    const config: RagwatchConfig = only.length === 0 ? loaded : { ...loaded, evaluators: loaded.evaluators.filter((e) => only.includes(e.name)) };
    if (sub === 'validate' && rest.length === 0) {
      process.stdout.write(values.json ? `${JSON.stringify({ evaluators: metricRegistryOf(config).evaluators() })}\n` : describeEvaluators(config));
      return;
    }
    if (sub === 'try' && rest.length === 1) {
      const limit = values.limit === undefined ? Infinity : Number(values.limit);
      if (limit !== Infinity && !(limit > 0 && Number.isInteger(limit))) throw new ConfigError(`--limit ${values.limit}: a positive whole number`, ['--limit']);
      await tryEvaluators(config, rest[0]!, limit);
      return;
    }
    throw new ConfigError(`${USAGE}\n(got: ${positionals.join(' ') || 'nothing'})`, []);
  },
};

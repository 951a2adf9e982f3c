/**
 * `ragwatch score FILE.jsonl`: scores triplets offline with the configured judge and prints one
 * ScoreRecord JSON per line (backfills; a CI quality gate for a RAG app with `--min`).
 * @module
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/load.ts';
import { createEvaluators } from '../evaluators/create.ts';
import type { EvaluatorSet } from '../evaluators/types.ts';
import { piiCheckOf, type PiiCheck } from '../judges/pii.ts';
import { ConfigError } from '../errors.ts';
import { createInstruments } from '../telemetry/instruments.ts';
import { createRedactor } from '../capture/redaction/redact-outcome.ts';
import { createJudge } from '../judges/create.ts';
import type { Judge } from '../judges/types.ts';
import { scoreRecordOf } from '../scorer/score-record.ts';
import { metricRegistryOf, type MetricRegistry } from '../metric-registry.ts';
import { sampledTripletSchema, tripletSchema, type MetricName, type SampledTriplet, type ScoreRecord } from '../triplet.ts';
import type { Command } from './types.ts';

function parseMin(values: readonly string[], registry: MetricRegistry): Map<MetricName, number> {
  const out = new Map<MetricName, number>();
  for (const v of values) {
    const [name, raw] = v.split('=');
    const threshold = Number(raw);
    if (!name || !registry.has(name) || raw === undefined || !(threshold >= 0 && threshold <= 1)) {
      throw new ConfigError(`--min ${v}: expected METRIC=VALUE with a metric from ${registry.names().join(', ')} and 0 ≤ VALUE ≤ 1`, ['--min']);
    }
    out.set(name as MetricName, threshold);
  }
  return out;
}

function toSampled(value: unknown): SampledTriplet | string {
  const sampled = sampledTripletSchema.safeParse(value);
  if (sampled.success) return sampled.data;
  const plain = tripletSchema.safeParse(value);
  if (plain.success) return { ...plain.data, sampling: { weight: 1, stratum: 'offline', rule: 'offline' } };
  const issue = plain.error.issues[0];
  return `not a triplet: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`;
}

async function scoreOne(judge: Judge, triplet: SampledTriplet, pii: PiiCheck | undefined, evaluators: EvaluatorSet | undefined): Promise<ScoreRecord | string> {
  const result = await judge.score(triplet);
  if (!result.ok) return `${result.error.code}: ${result.error.message}`;
  return scoreRecordOf(triplet, judge, result, pii?.(triplet), evaluators?.forRecord(triplet, judge.kind, result));
}

export const scoreCommand: Command = {
  name: 'score',
  summary: 'score triplets from a JSONL file offline with the configured judge; print ScoreRecords',
  usage: `usage: ragwatch score FILE.jsonl [options]

Reads one Triplet (or SampledTriplet) JSON per line ("-" = stdin), scores each with the configured
judge and prints one ScoreRecord JSON per line on stdout; a summary goes to stderr.
Exit code 1 when a line fails or a --min gate is not met.

  -c, --config FILE        YAML configuration (default: $RAGWATCH_CONFIG, else embedded defaults)
      --judge KIND         embedded | local | llm (overrides judge.kind; local needs its model: ragwatch models)
      --concurrency N      triplets scored at once (default: judge.concurrency)
      --min METRIC=VALUE   fail when the weighted mean of METRIC is below VALUE (repeatable)`,
  async run(argv) {
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { config: { type: 'string', short: 'c' }, judge: { type: 'string' }, concurrency: { type: 'string' }, min: { type: 'string', multiple: true } },
    });
    if (positionals.length !== 1) throw new ConfigError(`ragwatch score: expected one FILE.jsonl argument\n${scoreCommand.usage}`, ['FILE']);
    const overrides: Record<string, unknown> = {};
    if (values.judge !== undefined || values.concurrency !== undefined) {
      overrides.judge = { ...(values.judge !== undefined ? { kind: values.judge } : {}), ...(values.concurrency !== undefined ? { concurrency: Number(values.concurrency) } : {}) };
    }
    const config = loadConfig({ ...(values.config ? { file: values.config } : {}), overrides, offline: true });
    const gates = parseMin(values.min ?? [], metricRegistryOf(config));
    const judge = createJudge(config, { instruments: createInstruments({ processMetrics: false }), requireModel: true });
    await judge.init();
    const redactor = createRedactor(config.redaction);
    const pii = piiCheckOf(config);
    const evaluators = createEvaluators(config);

    const file = positionals[0]!;
    const lines = createInterface({ input: file === '-' ? process.stdin : createReadStream(file, 'utf8'), crlfDelay: Infinity });
    const sums = new Map<MetricName, { weighted: number; weight: number; n: number }>();
    let failures = 0;
    let scored = 0;
    let lineNo = 0;
    let window: Array<Promise<{ line: number; out: ScoreRecord | string }>> = [];
    const flush = async () => {
      // Print in input order; a window of `concurrency` triplets is scored at once.
      for (const { line, out } of await Promise.all(window)) {
        if (typeof out === 'string') {
          failures++;
          process.stderr.write(`line ${line}: ${out}\n`);
          continue;
        }
        scored++;
        process.stdout.write(`${JSON.stringify(out)}\n`);
        for (const [metric, value] of Object.entries(out.scores)) {
          const s = sums.get(metric) ?? { weighted: 0, weight: 0, n: 0 };
          s.weighted += value * out.weight;
          s.weight += out.weight;
          s.n++;
          sums.set(metric, s);
        }
      }
      window = [];
    };
    try {
      for await (const text of lines) {
        lineNo++;
        if (text.trim() === '') continue;
        const line = lineNo;
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          window.push(Promise.resolve({ line, out: 'not valid JSON' }));
          continue;
        }
        const triplet = toSampled(parsed);
        // Triplets from a file may carry raw PII: redact before the judge sees them (DESIGN §11 promise 8).
        if (typeof triplet === 'string') window.push(Promise.resolve({ line, out: triplet }));
        else {
          const redacted = redactor.redact(triplet);
          window.push(redacted.ok ? scoreOne(judge, { ...redacted.triplet, sampling: triplet.sampling }, pii, evaluators).then((out) => ({ line, out })) : Promise.resolve({ line, out: 'redaction failed; not scored' }));
        }
        if (window.length >= config.judge.concurrency) await flush();
      }
      await flush();
    } finally {
      await judge.shutdown();
    }

    const summary = [...sums.entries()].map(([m, s]) => `${m}=${(s.weighted / s.weight).toFixed(3)} (n=${s.n})`);
    process.stderr.write(`ragwatch score: ${scored} scored, ${failures} failed, judge=${judge.kind}${judge.model ? ` model=${judge.model}` : ''}\n${summary.map((l) => `  ${l}`).join('\n')}\n`);
    let failed = failures > 0;
    for (const [metric, threshold] of gates) {
      const s = sums.get(metric);
      const mean = s ? s.weighted / s.weight : undefined;
      if (mean === undefined || mean < threshold) {
        failed = true;
        process.stderr.write(`ragwatch score: gate failed: ${metric} ${mean === undefined ? 'has no scores' : `mean ${mean.toFixed(3)} < ${threshold}`}\n`);
      }
    }
    if (failed) process.exitCode = 1;
  },
};

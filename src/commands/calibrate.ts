/**
 * `ragwatch calibrate LABELS.jsonl`: fits the judges' calibration to human labels and reports the
 * agreement (docs/calibration.md). Each line is `{"triplet": Triplet, "labels": {"groundedness": 1}}`
 * (optionally with `"records": [ScoreRecord]` when already scored); the triplets without records are
 * scored with the configured judge, redacted first.
 * @module
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { fitCalibration, type CalibrationReport } from '../calibration/fit.ts';
import { labelledPoints, type LabelledAnswer } from '../calibration/labels.ts';
import type { CalibrationModel } from '../calibration/types.ts';
import { createRedactor } from '../capture/redaction/redact-outcome.ts';
import { saveCalibrationFile } from '../config/load-calibration.ts';
import { loadConfig } from '../config/load.ts';
import { ConfigError } from '../errors.ts';
import { createInstruments } from '../metrics/instruments.ts';
import { createCompanionJudge, createJudge } from '../pipeline.ts';
import { scoreRecordOf } from '../scorer/score-record.ts';
import { scoreRecordSchema, tripletSchema, type ScoreRecord } from '../triplet.ts';
import type { Judge } from '../judges/types.ts';
import type { Command } from './types.ts';

const labelValue = z.union([z.literal(0), z.literal(1), z.boolean()]).transform((v) => (v === true || v === 1 ? 1 : 0) as 0 | 1);
const lineSchema = z.object({ triplet: tripletSchema, labels: z.record(z.string().regex(/^[a-z][a-z0-9_]*$/), labelValue), records: z.array(scoreRecordSchema).optional() });

const fmt = (v: number | null, digits = 3) => (v === null ? 'n/a' : v.toFixed(digits));

/** The readable report. */
export function formatCalibration(reports: readonly CalibrationReport[]): string {
  const lines = ['metric (judge) ← label          n     AUC  Spearman  kappa   Brier raw→cal    ECE raw→cal     method    coverage  sets (1 / both / 0)'];
  for (const r of reports) {
    const head = `${`${r.metric} (${r.judge}) ← ${r.labelMetric}`.padEnd(32)}${String(r.n).padStart(5)}`;
    if (r.skipped) {
      lines.push(`${head}   not calibrated: ${r.skipped}`);
      continue;
    }
    const sets = r.setSizes ? `${fmt(r.setSizes.single, 2)} / ${fmt(r.setSizes.both, 2)} / ${fmt(r.setSizes.empty, 2)}` : 'n/a';
    lines.push(`${head}  ${fmt(r.auc)}  ${fmt(r.spearman).padStart(8)}  ${fmt(r.kappa).padStart(5)}   ${fmt(r.brierRaw)}→${fmt(r.brierCalibrated)}   ${fmt(r.eceRaw)}→${fmt(r.eceCalibrated)}   ${String(r.method).padEnd(8)}  ${fmt(r.coverage)} (1−α ${1 - r.alpha})  ${sets}`);
  }
  return `${lines.join('\n')}\n`;
}

async function scoreAll(answers: Array<{ id: string; triplet: z.infer<typeof tripletSchema>; records?: ScoreRecord[] }>, judges: Judge[], concurrency: number, redact: ReturnType<typeof createRedactor>): Promise<Map<string, ScoreRecord[]>> {
  const out = new Map<string, ScoreRecord[]>();
  const todo = answers.filter((a) => !a.records);
  for (const a of answers) if (a.records) out.set(a.id, a.records);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < todo.length; i = next++) {
      const a = todo[i]!;
      const sampled = { ...a.triplet, sampling: { weight: 1, stratum: 'labels', rule: 'labels' } };
      const redacted = redact.redact(sampled);
      if (!redacted.ok) continue;
      const records: ScoreRecord[] = [];
      for (const judge of judges) {
        const result = await judge.score({ ...redacted.triplet, sampling: sampled.sampling });
        if (result.ok) records.push(scoreRecordOf(sampled, judge, result));
      }
      out.set(a.id, records);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, todo.length)) }, worker));
  return out;
}

export const calibrateCommand: Command = {
  name: 'calibrate',
  summary: 'fit the judges to human labels (Platt / isotonic + conformal) and report the agreement',
  usage: `usage: ragwatch calibrate LABELS.jsonl [--json] [--alpha A] [--out FILE] [-c FILE]

Each line: {"triplet": Triplet, "labels": {"groundedness": 1, ...}} (1 or true = good), optionally with
"records": [ScoreRecord] when the answer is already scored; otherwise it is scored with the configured
judge (and the embedded companion with judge.embedded.alongside), redacted first. A label on a concept
calibrates every metric of calibration.labelMetrics (groundedness → groundedness, faithfulness,
hallucination_free, grounding_lexical). Per (metric, judge): n, ROC-AUC, Spearman, Cohen's kappa at the
alert threshold, Brier and ECE raw → calibrated, the method (Platt or isotonic, lower cross-validated
Brier), conformal coverage and prediction-set shares on a held-out test part (deterministic 60/20/20
split by triplet id).

  --json          one object: {"calibrations": [...]}
  --alpha A       miscoverage of the prediction sets (default calibration.alpha, 0.1)
  --out FILE      save the fitted calibrations (load them with calibration.file)
  -c, --config    ragwatch configuration (judge, thresholds, calibration.*)`,
  async run(argv) {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean', default: false }, alpha: { type: 'string' }, out: { type: 'string' }, config: { type: 'string', short: 'c' } } });
    if (positionals.length !== 1) throw new ConfigError(`ragwatch calibrate: expected one LABELS.jsonl argument\n${calibrateCommand.usage}`, ['LABELS']);
    const config = loadConfig(values.config ? { file: values.config } : {});
    const alpha = values.alpha === undefined ? config.calibration.alpha : Number(values.alpha);
    if (!(alpha > 0 && alpha < 1)) throw new ConfigError(`ragwatch calibrate: --alpha must be in (0, 1), got "${values.alpha}"`, ['--alpha']);
    const answers: Array<{ id: string; triplet: z.infer<typeof tripletSchema>; labels: Record<string, 0 | 1>; records?: ScoreRecord[] }> = [];
    const file = positionals[0]!;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new ConfigError(`ragwatch calibrate: cannot read ${file}: ${(err as Error).message}`, ['LABELS']);
    }
    for (const [i, line] of text.split('\n').entries()) {
      if (line.trim() === '') continue;
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch {
        throw new ConfigError(`${file}:${i + 1}: not valid JSON`, ['LABELS']);
      }
      const parsed = lineSchema.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new ConfigError(`${file}:${i + 1}: key "${issue.path.join('.')}": ${issue.message}`, ['LABELS']);
      }
      answers.push({ id: parsed.data.triplet.id, triplet: parsed.data.triplet, labels: parsed.data.labels, ...(parsed.data.records ? { records: parsed.data.records } : {}) });
    }
    const instruments = createInstruments({ processMetrics: false });
    const judges = [createJudge(config, { instruments }), createCompanionJudge(config)].filter((j): j is Judge => j !== undefined);
    let records: Map<string, ScoreRecord[]>;
    try {
      if (answers.some((a) => !a.records)) await Promise.all(judges.map((j) => j.init()));
      records = await scoreAll(answers, judges, config.judge.concurrency, createRedactor(config.redaction));
    } finally {
      await Promise.all(judges.map((j) => j.shutdown()));
    }
    const labelled: LabelledAnswer[] = answers.map((a) => ({ id: a.id, labels: a.labels, records: records.get(a.id) ?? [] }));
    const reports: CalibrationReport[] = [];
    const models: CalibrationModel[] = [];
    for (const g of [...labelledPoints(labelled, config.calibration.labelMetrics).values()].sort((a, b) => a.metric.localeCompare(b.metric) || a.judge.localeCompare(b.judge))) {
      const threshold = config.alerts.metrics[g.metric as keyof typeof config.alerts.metrics]?.threshold;
      const { model, report } = fitCalibration(g, g.points, { alpha, minLabels: config.calibration.minLabels, ...(threshold !== undefined ? { threshold } : {}) });
      reports.push(report);
      if (model) models.push(model);
    }
    if (values.out) saveCalibrationFile(values.out, models);
    process.stdout.write(values.json ? `${JSON.stringify({ calibrations: reports.map(({ test: _test, ...r }) => r) })}\n` : formatCalibration(reports));
    if (values.out && !values.json) process.stdout.write(`saved ${models.length} calibration(s) to ${values.out}\n`);
  },
};

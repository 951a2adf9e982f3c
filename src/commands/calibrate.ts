/**
 * `ragwatch calibrate LABELS.jsonl`: fits the judges' calibration to human labels and reports the
 * agreement (docs/calibration.md). Each line is `{"triplet": Triplet, "labels": {"groundedness": 1}}`
 * (optionally with `"records": [ScoreRecord]` when already scored); the triplets without records are
 * scored with the configured judge, redacted first.
 * @module
 */
import { parseArgs } from 'node:util';
import { fitCalibration, type CalibrationReport } from '../calibration/fit.ts';
import { parseLabelsFile, scoreLabelled } from '../calibration/label-file.ts';
import { labelledPoints, type LabelledAnswer } from '../calibration/labels.ts';
import type { CalibrationModel } from '../calibration/types.ts';
import { saveCalibrationFile } from '../calibration/load-file.ts';
import { loadConfig } from '../config/load.ts';
import { ConfigError } from '../errors.ts';
import type { Command } from './types.ts';

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
    const config = loadConfig({ ...(values.config ? { file: values.config } : {}), offline: true });
    const alpha = values.alpha === undefined ? config.calibration.alpha : Number(values.alpha);
    if (!(alpha > 0 && alpha < 1)) throw new ConfigError(`ragwatch calibrate: --alpha must be in (0, 1), got "${values.alpha}"`, ['--alpha']);
    const file = positionals[0]!;
    const { answers } = parseLabelsFile(file, 'calibrate', false);
    const { records } = await scoreLabelled(answers, config);
    const labelled: LabelledAnswer[] = answers.map((a) => ({ id: a.triplet.id, labels: a.labels, records: records.get(a.triplet.id) ?? [] }));
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

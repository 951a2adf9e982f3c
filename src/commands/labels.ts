/**
 * `ragwatch labels import FILE.jsonl`: puts human labels made elsewhere into the review store, where
 * the scoring roles refit their calibration from them (docs/calibration.md).
 * @module
 */
import { parseArgs } from 'node:util';
import { parseLabelsFile, scoreLabelled } from '../calibration/label-file.ts';
import { loadConfig } from '../config/load.ts';
import { ConfigError } from '../errors.ts';
import { silentLogger } from '../log.ts';
import { createInstruments } from '../telemetry/instruments.ts';
import { openReviewStore, reviewItemOf } from '../store/create.ts';
import type { Command } from './types.ts';

export const labelsCommand: Command = {
  name: 'labels',
  summary: 'import human labels into the review store (labels import FILE.jsonl)',
  usage: `usage: ragwatch labels import [-c FILE] LABELS.jsonl

Each line is either {"triplet": Triplet, "labels": {"groundedness": 1}} (optionally with "records":
[ScoreRecord]; unscored answers are scored with the configured judge, redacted first, and stored with
their scores) or {"tripletId", "metric", "value": 0|1, "reviewer"?} for an answer the store already
holds. The store is store.dataDir/ragwatch.sqlite (env RAGWATCH_DATA_DIR); a running ragwatch picks the
labels up at its next refit (calibration.refitIntervalMs). Exit 1 when a label names an answer the store
does not hold.`,
  async run(argv) {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { config: { type: 'string', short: 'c' } } });
    const [sub, file] = positionals;
    if (sub !== 'import' || file === undefined) throw new ConfigError(`ragwatch labels: expected "import LABELS.jsonl"\n${labelsCommand.usage}`, ['LABELS']);
    const config = loadConfig(values.config ? { file: values.config } : {});
    const { answers, bare } = parseLabelsFile(file, 'labels', true);
    const store = await openReviewStore(config, createInstruments({ processMetrics: false }).registry, silentLogger);
    if (!store) throw new ConfigError(`ragwatch labels: cannot open the store in ${config.store.dataDir} (config key "store.dataDir", env RAGWATCH_DATA_DIR)`, ['store.dataDir']);
    let stored = 0;
    let missing = 0;
    let imported = 0;
    try {
      const { records, redacted } = await scoreLabelled(answers, config);
      const now = Date.now();
      for (const a of answers) {
        const t = redacted.get(a.triplet.id);
        const rs = records.get(a.triplet.id) ?? [];
        if (!t || rs.length === 0) {
          process.stderr.write(`ragwatch labels: ${a.triplet.id}: not scored (redaction or judge failed); its labels are skipped\n`);
          missing++;
          continue;
        }
        // One review item per answer, with the configured judge's scores (the refit joins labels to them).
        store.addItem(reviewItemOf(rs[0]!, t, { labelMetrics: config.calibration.labelMetrics, maxTextChars: config.store.maxTextChars, undecided: () => false, now }));
        imported++;
        for (const [metric, value] of Object.entries(a.labels)) {
          store.addLabel({ tripletId: a.triplet.id, metric, value, reviewer: 'import' });
          stored++;
        }
      }
      for (const l of bare) {
        if (!store.item(l.tripletId)) {
          process.stderr.write(`ragwatch labels: ${l.tripletId}: no such answer in the store (never sampled, or evicted)\n`);
          missing++;
          continue;
        }
        store.addLabel({ ...l, reviewer: l.reviewer ?? 'import' });
        stored++;
      }
    } finally {
      await store.shutdown();
    }
    process.stdout.write(`ragwatch labels: ${stored} labels stored (${imported} answers with their scores), ${missing} skipped\n`);
    if (missing > 0) process.exitCode = 1;
  },
};

/**
 * Split mode's firings for the history (`ragwatch slices`): the threshold and change alerts a scorer
 * replica evaluates see only its share of the records, so over every record the slices pod evaluates
 * them again — the same evaluators with the same configuration, as the generated Prometheus rules do
 * over all replicas — only to keep their firings on the charts. They notify nobody (the rules and the
 * scorers page) and export no series; the slice alerts of the pod are recorded from its own notifier.
 * @module
 */
import { ChangeMonitor } from '../change/monitor.ts';
import { changeRulesFromConfig } from '../change/rules.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import type { History } from '../history/create.ts';
import type { Logger } from '../log.ts';
import { AlertEvaluator, alertRulesFromConfig } from '../metrics/evaluator.ts';
import { AlertNotifier } from '../metrics/notifier.ts';
import { retentionMs } from '../metrics/score-metrics.ts';
import { ScoreWindows } from '../metrics/score-windows.ts';
import type { RecordSink } from '../scorer/record-sinks.ts';
import type { ScoreRecord } from '../triplet.ts';

/** The evaluators whose firings the history keeps, fed every record. */
export interface HistoryAlerts extends RecordSink {
  start(): void;
  shutdown(): Promise<void>;
}

/** Threshold and change alerts over every record, heard only by the history. */
export function historyAlerts(config: RagwatchConfig, history: History, options: { serviceOf: (record: ScoreRecord) => string; store?: { saveModel(name: string, body: unknown): void; model<T>(name: string): T | undefined }; logger?: Logger }): HistoryAlerts {
  const recorder = new AlertNotifier();
  recorder.observe(history.sink.onNotices);
  const intervalMs = config.alerts.evaluationIntervalMs;
  const windows = new ScoreWindows({ retentionMs: retentionMs(config) });
  const evaluator = new AlertEvaluator({ rules: alertRulesFromConfig(config.alerts), windows, notifier: recorder, intervalMs, diagnosisWindowMs: config.metrics.windowMs });
  const change = new ChangeMonitor({ ...changeRulesFromConfig(config.alerts), notifier: recorder, serviceOf: options.serviceOf, intervalMs, ...(options.store ? { store: options.store } : {}), ...(options.logger ? { logger: options.logger } : {}) });
  return {
    onRecord(record) {
      if (record.origin === 'probe') return;
      const service = options.serviceOf(record);
      for (const [metric, value] of Object.entries(record.scores)) if (value !== undefined) windows.add({ metric, judge: record.judge.kind, service }, value, record.weight);
      change.onRecord(record);
    },
    start() {
      if (!config.alerts.evaluate) return;
      evaluator.start();
      change.start();
    },
    async shutdown() {
      await evaluator.shutdown();
      await change.shutdown();
    },
  };
}

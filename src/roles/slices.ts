/**
 * The `ragwatch slices` role (split mode): slice alerts and the release gate over the score records
 * of every scorer replica, read from the scores topic in one consumer group — each scorer sees only
 * its share, too little to decide on a 5 % canary, and alerts there would fire once per replica. One
 * replica per deployment; `ragwatch start` runs the same monitor in process. The history of every
 * score (docs/history.md) is kept here too, drawn at `/` and served at `/api/series`.
 * @module
 */
import { metricRegistryOf } from '../metric-registry.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import { ConfigError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { examplesBaseUrl } from '../metrics/rules.ts';
import { alertNotifier } from '../metrics/score-metrics.ts';
import { createApiApp } from '../server/api-app.ts';
import { SliceMonitor } from '../slices/monitor.ts';
import { sliceSettingsFromConfig } from '../slices/settings.ts';
import { openReviewStore } from '../store/create.ts';
import { createInstruments, instrumentsOptionsFromConfig } from '../telemetry/instruments.ts';
import { createKafka } from '../transport/kafka-client.ts';
import { KafkaScoreFeed } from '../transport/kafka-score-feed.ts';
import { isProbeTraceId, type ScoreRecord } from '../triplet.ts';
import { listen, type RunningServer } from './serve.ts';
import { openHistory } from '../history/create.ts';
import { alertRulesFromConfig } from '../metrics/evaluator.ts';
import { historyAlerts } from './history-alerts.ts';

/** A running `ragwatch slices`. */
export interface RunningSlices {
  monitor: SliceMonitor;
  http: RunningServer;
  /** Leaves the group, saves the counts, stops the server. Idempotent. */
  shutdown(): Promise<void>;
}

/** Starts the slices role. */
export async function startSlicesRole(config: RagwatchConfig, logger: Logger): Promise<RunningSlices> {
  if (config.transport.kind !== 'kafka') throw new ConfigError('config key "transport.kind": ragwatch slices reads the scores topic of split mode (kafka); "ragwatch start" runs the slice alerts in process', ['transport.kind']);
  const instruments = createInstruments(instrumentsOptionsFromConfig(config));
  // The counts survive a restart in the embedded store, as the scorers' change baselines do.
  const store = await openReviewStore(config, instruments.registry, logger);
  const serviceOf = (record: ScoreRecord) => instruments.score.boundLabels({ service: record.service }).service ?? 'other';
  const notifier = alertNotifier(config, instruments.registry);
  // The history is the service's: kept here, where every scorer's records arrive (docs/history.md).
  const thresholds = Object.fromEntries(alertRulesFromConfig(config.alerts).map((r) => [r.metric, r.threshold]));
  const history = await openHistory(config, { registry: instruments.registry, logger, serviceOf, thresholds: () => thresholds, metrics: metricRegistryOf(config) });
  if (history) notifier.observe(history.sink.onNotices);
  const alerts = history ? historyAlerts(config, history, { serviceOf, ...(store ? { store } : {}), logger }) : undefined;
  const monitor = new SliceMonitor({
    ...sliceSettingsFromConfig(config.alerts),
    registry: instruments.registry,
    notifier,
    serviceOf,
    intervalMs: config.alerts.evaluationIntervalMs,
    examplesUrl: examplesBaseUrl(config),
    ...(store ? { store } : {}),
    logger,
  });
  const section = config.transport.kafka;
  const onRecord = (r: ScoreRecord) => {
    monitor.onRecord(r);
    history?.sink.onRecord(r);
    alerts?.onRecord(r);
  };
  const feed = new KafkaScoreFeed({ kafka: createKafka(section, logger), section, groupId: section.slicesGroupId, accept: (traceId) => !isProbeTraceId(traceId), name: 'slices score feed', registry: metricRegistryOf(config), onRecord, onDuplicate: () => instruments.dropped.inc({ stage: 'score_feed', reason: 'duplicate' }), logger });
  const { server } = config;
  const auth = { apiToken: server.apiToken, host: server.host, allowUnauthenticated: server.allowUnauthenticatedUi };
  const http = await listen(createApiApp({ registry: instruments.registry, ready: () => feed.running, slices: monitor, auth, history: history?.view, metrics: metricRegistryOf(config) }), server.host, server.httpPort);
  void feed.start();
  if (config.alerts.evaluate) monitor.start();
  history?.start();
  alerts?.start();
  logger.info({ metrics: `http://${server.host}:${http.port}/metrics`, scores: section.topics.scores, group: section.slicesGroupId }, 'ragwatch slices started');
  let stopping: Promise<void> | undefined;
  return {
    monitor,
    http,
    shutdown: () =>
      (stopping ??= (async () => {
        await feed.shutdown();
        await monitor.shutdown();
        await alerts?.shutdown();
        await history?.shutdown();
        await store?.shutdown();
        await http.close();
      })()),
  };
}

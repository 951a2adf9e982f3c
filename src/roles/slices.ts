/**
 * The `ragwatch slices` role (split mode): slice alerts and the release gate over the score records
 * of every scorer replica, read from the scores topic in one consumer group — each scorer sees only
 * its share, too little to decide on a 5 % canary, and alerts there would fire once per replica. One
 * replica per deployment; `ragwatch start` runs the same monitor in process.
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
import { isProbeTraceId } from '../triplet.ts';
import { listen, type RunningServer } from './serve.ts';

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
  const monitor = new SliceMonitor({
    ...sliceSettingsFromConfig(config.alerts),
    registry: instruments.registry,
    notifier: alertNotifier(config, instruments.registry),
    serviceOf: (record) => instruments.score.boundLabels({ service: record.service }).service ?? 'other',
    intervalMs: config.alerts.evaluationIntervalMs,
    examplesUrl: examplesBaseUrl(config),
    ...(store ? { store } : {}),
    logger,
  });
  const section = config.transport.kafka;
  const feed = new KafkaScoreFeed({ kafka: createKafka(section, logger), section, groupId: section.slicesGroupId, accept: (traceId) => !isProbeTraceId(traceId), name: 'slices score feed', registry: metricRegistryOf(config), onRecord: (r) => monitor.onRecord(r), logger });
  const { server } = config;
  const auth = { apiToken: server.apiToken, host: server.host, allowUnauthenticated: server.allowUnauthenticatedUi };
  const http = await listen(createApiApp({ registry: instruments.registry, ready: () => feed.running, slices: monitor, auth }), server.host, server.httpPort);
  void feed.start();
  if (config.alerts.evaluate) monitor.start();
  logger.info({ metrics: `http://${server.host}:${http.port}/metrics`, scores: section.topics.scores, group: section.slicesGroupId }, 'ragwatch slices started');
  let stopping: Promise<void> | undefined;
  return {
    monitor,
    http,
    shutdown: () =>
      (stopping ??= (async () => {
        await feed.shutdown();
        await monitor.shutdown();
        await store?.shutdown();
        await http.close();
      })()),
  };
}

/**
 * The `ragwatch prober` role (split mode): the scheduled prober alone, one replica per deployment,
 * with /metrics, /healthz and /readyz. With Kafka it joins its probes to the score records the
 * scorers publish; answers of an uninstrumented service (or whose scores never arrive) are scored
 * here with the configured judge, from the sources the service returned.
 * @module
 */
import { metricRegistryOf } from '../metric-registry.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import { ConfigError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { createInstruments } from '../telemetry/instruments.ts';
import { instrumentsOptionsFromConfig } from '../telemetry/instruments.ts';
import { createJudge } from '../judges/create.ts';
import { createApiApp } from '../server/api-app.ts';
import { listen, type RunningServer } from './serve.ts';
import { createKafka } from '../transport/kafka-client.ts';
import { createProber } from '../probes/create.ts';
import { createExamMonitor } from '../exams/create.ts';
import type { Prober } from '../probes/prober.ts';
import { KafkaScoreFeed } from '../transport/kafka-score-feed.ts';
import { isProbeTraceId } from '../triplet.ts';

/** How long the first run waits for the score feed to join its group, milliseconds. */
const FEED_START_WAIT_MS = 30_000;

/** A running `ragwatch prober`. */
export interface RunningProber {
  prober: Prober;
  http: RunningServer;
  /** Stops the schedules, the score feed, the judge and the server. Idempotent. */
  shutdown(): Promise<void>;
}

/** Starts the prober role. */
export async function startProberRole(config: RagwatchConfig, logger: Logger): Promise<RunningProber> {
  if (config.probes.suites.length === 0) throw new ConfigError('config key "probes.suites": ragwatch prober needs at least one probe suite (env RAGWATCH_PROBE_SUITES)', ['probes.suites']);
  const instruments = createInstruments(instrumentsOptionsFromConfig(config));
  const judge = createJudge(config, { instruments });
  const prober = (await createProber(config, { registry: instruments.registry, logger, judge }))!;
  // The exam series are exported by the one prober of the deployment (the store is its volume).
  const exams = await createExamMonitor(config, instruments.registry, logger);
  const section = config.transport.kafka;
  const feed = config.transport.kind === 'kafka' ? new KafkaScoreFeed({ kafka: createKafka(section, logger), section, groupId: section.proberGroupId, accept: isProbeTraceId, name: 'prober score feed', registry: metricRegistryOf(config), onRecord: (r) => prober.onRecord(r), onDuplicate: () => instruments.dropped.inc({ stage: 'score_feed', reason: 'duplicate' }), logger }) : undefined;
  let judgeReady = false;
  const { server } = config;
  // /probes and /api/probes show the service's answers: behind the UI's sign-in, as on the scorers.
  const auth = { apiToken: server.apiToken, host: server.host, allowUnauthenticated: server.allowUnauthenticatedUi };
  const http = await listen(createApiApp({ registry: instruments.registry, ready: () => judgeReady && (feed?.running ?? true), probes: prober, auth, traceUrlTemplate: server.traceUrlTemplate }), server.host, server.httpPort);
  judge.init().then(
    () => (judgeReady = true),
    (err: unknown) => logger.error({ err }, 'judge failed to start; unjoined probe answers will not be scored'),
  );
  // Records published before the feed's group has joined are not read (it starts at the newest offset):
  // the first run waits for the feed, up to a bound, so a Kafka outage delays probing only that long.
  if (feed) await Promise.race([feed.start(), new Promise((r) => setTimeout(r, FEED_START_WAIT_MS).unref())]);
  prober.start();
  logger.info({ metrics: `http://${config.server.host}:${http.port}/metrics`, suites: config.probes.suites.length, scores: feed ? section.topics.scores : 'scored here' }, 'ragwatch prober started');
  let stopping: Promise<void> | undefined;
  return {
    prober,
    http,
    shutdown: () =>
      (stopping ??= (async () => {
        await prober.shutdown();
        await exams?.shutdown();
        await feed?.shutdown();
        await judge.shutdown();
        await http.close();
      })()),
  };
}

/**
 * `ragwatch scorer`: Kafka consumer group → judges → metrics, scores topic and DLQ, until
 * SIGINT/SIGTERM. Serves /metrics, /healthz and /readyz. Scale by running more replicas
 * (up to the triplets topic's partition count).
 * @module
 */
import { createInstruments } from '../telemetry/instruments.ts';
import { QualityMonitor, configSummary } from '../metrics/quality.ts';
import { instrumentsOptionsFromConfig } from '../telemetry/instruments.ts';
import { Pipeline } from '../roles/pipeline.ts';
import { openReviewStore } from '../store/create.ts';
import { LabelBus } from '../store/label-bus.ts';
import { TopicModelBus } from '../weakness/topic-bus.ts';
import { createKafka } from '../transport/kafka-client.ts';
import { startHttpServers } from '../server/http-servers.ts';
import { kafkaRoleSetup, stopOnSignals } from './lifecycle.ts';
import type { Command } from './types.ts';

export const scorerCommand: Command = {
  name: 'scorer',
  summary: 'Kafka → judges → metrics, scores topic and DLQ (scale out via the consumer group)',
  usage: `usage: ragwatch scorer [-c FILE]

  -c, --config FILE   YAML configuration (default: $RAGWATCH_CONFIG)

Needs transport.kind: kafka and transport.kafka.brokers. Joins consumer group
transport.kafka.groupId, commits each offset only after the triplet is scored (score record
acknowledged), in the DLQ, or counted as dropped. Serves /metrics, /healthz, /readyz on
server.httpPort.`,
  async run(argv) {
    const { config, logger } = kafkaRoleSetup(argv, 'the scorer consumes from Kafka');
    // Scores are made here in split mode: windowed means, alerts, diagnosis and examples live here too.
    const instruments = createInstruments(instrumentsOptionsFromConfig(config));
    const review = await openReviewStore(config, instruments.registry, logger);
    // Every replica fits the same calibration: labels given on any replica travel on the labels topic.
    const labelBus = review ? new LabelBus({ kafka: createKafka(config.transport.kafka, logger, '-labels'), section: config.transport.kafka, store: review, logger }) : undefined;
    void labelBus?.start();
    const quality = new QualityMonitor({ config, instruments, logger, ...(review ? { review } : {}) });
    // Every replica uses the same topics: the earliest fit of each generation, shared on the topic-models topic.
    const topicBus = quality.topics ? new TopicModelBus({ kafka: createKafka(config.transport.kafka, logger, '-topics'), section: config.transport.kafka, onModel: (m) => quality.topics?.offer(m), logger }) : undefined;
    if (topicBus) quality.weakness.publish = (m) => topicBus.publish(m);
    void topicBus?.start();
    const pipeline = new Pipeline({ config, instruments, onRecord: quality.onRecord, role: 'scorer', logger });
    const servers = await startHttpServers(config.server, { registry: instruments.registry, ready: () => pipeline.ready, quality, summary: () => configSummary(config) }, logger);
    const { http } = servers;
    logger.info({ metrics: `http://${config.server.host}:${http.port}/metrics`, group: config.transport.kafka.groupId, judge: pipeline.judge.kind }, 'ragwatch scorer started');
    pipeline.start().then(
      () => logger.info({ judge: pipeline.judge.kind }, 'scorer consuming'),
      (err: unknown) => logger.error({ err }, 'scorer failed to start'),
    );
    quality.start();
    stopOnSignals({
      logger,
      graceMs: config.server.shutdownGraceMs,
      what: 'finish the current batch, commit, leave the group',
      shutdown: async () => {
        await pipeline.shutdown();
        await labelBus?.shutdown();
        await topicBus?.shutdown();
        await quality.shutdown();
        await servers.close();
      },
    });
  },
};

/**
 * `ragwatch scorer`: Kafka consumer group → judges → metrics, scores topic and DLQ, until
 * SIGINT/SIGTERM. Serves /metrics, /healthz and /readyz. Scale by running more replicas
 * (up to the triplets topic's partition count).
 * @module
 */
import { startScorer } from '../roles/scorer.ts';
import { kafkaRoleSetup, stopOnSignals } from './lifecycle.ts';
import type { Command } from './types.ts';

export const scorerCommand: Command = {
  name: 'scorer',
  summary: 'Kafka → judges → metrics, scores topic and DLQ (scale out via the consumer group)',
  usage: `usage: ragwatch scorer [-c FILE]

  -c, --config FILE   YAML configuration (default: $RAGWATCH_CONFIG)

Needs transport.kind: kafka and transport.kafka.brokers. Joins consumer group
transport.kafka.groupId, commits each offset only after the triplet is scored (score record
acknowledged), in the DLQ, or counted as dropped. Serves /metrics, /healthz, /readyz and the UI
(/, /examples, /review, /calibration, /weaknesses, /exams, /api/*) on server.httpPort.`,
  async run(argv) {
    const { config, logger } = kafkaRoleSetup(argv, 'the scorer consumes from Kafka');
    const scorer = await startScorer(config, logger);
    stopOnSignals({ logger, graceMs: config.server.shutdownGraceMs, what: 'finish the current batch, commit, leave the group', shutdown: () => scorer.shutdown() });
  },
};

/**
 * `ragwatch assembler`: spans topic → trace assembly → sampling → triplets topic (split mode).
 * @module
 */
import { startAssembler } from '../roles/assembler.ts';
import { kafkaRoleSetup, stopOnSignals } from './lifecycle.ts';
import type { Command } from './types.ts';

export const assemblerCommand: Command = {
  name: 'assembler',
  summary: 'spans topic → trace assembly → sample → triplets topic (split mode, behind "ragwatch collector")',
  usage: `usage: ragwatch assembler [-c FILE]

  -c, --config FILE   YAML configuration (default: $RAGWATCH_CONFIG)

Joins consumer group transport.kafka.assemblerGroupId on transport.kafka.topics.spans, where
collectors (transport.kafka.assembly: spans_topic) send compact redacted span records keyed by
trace id, so one assembler sees every span of a trace whichever collector received it. Commits a
partition's offset only past traces whose triplets Kafka acknowledged. Serves /metrics, /healthz,
/readyz on server.httpPort.`,
  async run(argv) {
    const { config, logger } = kafkaRoleSetup(argv, 'the assembler consumes from Kafka');
    const app = await startAssembler(config, logger);
    stopOnSignals({ logger, graceMs: config.server.shutdownGraceMs, what: 'send the triplets assembled, commit, hand buffered traces over to the next owner', shutdown: () => app.shutdown() });
  },
};

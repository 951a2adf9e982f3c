/**
 * `ragwatch collector`: OTLP ingest → span records on the spans topic for `ragwatch assembler` (or, with
 * `transport.kafka.assembly: local`, capture → sample → triplets topic), until SIGINT/SIGTERM.
 * Judging happens in `ragwatch scorer` processes.
 * @module
 */
import { startCollector } from '../roles/collector.ts';
import { kafkaRoleSetup, stopOnSignals } from './lifecycle.ts';
import type { Command } from './types.ts';

export const collectorCommand: Command = {
  name: 'collector',
  summary: 'OTLP ingest → span records on Kafka for "ragwatch assembler" (assembly: local: capture → sample → Kafka); judging runs in "ragwatch scorer"',
  usage: `usage: ragwatch collector [-c FILE]

  -c, --config FILE   YAML configuration (default: $RAGWATCH_CONFIG)

Needs transport.kind: kafka and transport.kafka.brokers (env RAGWATCH_TRANSPORT=kafka,
RAGWATCH_KAFKA_BROKERS=host:port,...). Serves OTLP/HTTP on server.otlpPort (4318, env
RAGWATCH_OTLP_PORT) and OTLP/gRPC on server.otlpGrpcPort (4317, env RAGWATCH_OTLP_GRPC_PORT;
server.otlpGrpc: false turns it off), with the same token, limits and load shedding on both, and
/metrics, /healthz, /readyz on server.httpPort. While Kafka is unreachable it keeps serving OTLP and
buffers up to transport.kafka.producer.maxBufferMessages, dropping (and counting) the excess.
By default (transport.kafka.assembly: spans_topic) it forwards redacted span records to the spans
topic, where "ragwatch assembler" assembles, samples and produces triplets; with assembly: local
(one replica only) it assembles and samples itself.`,
  async run(argv) {
    const { config, logger } = kafkaRoleSetup(argv, 'the collector produces to Kafka');
    const app = await startCollector(config, logger);
    stopOnSignals({ logger, graceMs: config.server.shutdownGraceMs, what: 'stop ingest, flush the producer', shutdown: () => app.shutdown() });
  },
};

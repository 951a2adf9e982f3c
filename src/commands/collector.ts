/**
 * `ragwatch collector`: OTLP ingest → capture → sample → Kafka, until SIGINT/SIGTERM.
 * Judging happens in `ragwatch scorer` processes.
 * @module
 */
import { parseArgs } from 'node:util';
import { startApp } from '../app.ts';
import { loadConfig } from '../config/load.ts';
import { ConfigError } from '../errors.ts';
import { createLogger, logDestination } from '../log.ts';
import { stopOnSignals } from './lifecycle.ts';
import type { Command } from './types.ts';

export const collectorCommand: Command = {
  name: 'collector',
  summary: 'OTLP ingest → capture → sample → Kafka (judging runs in "ragwatch scorer")',
  usage: `usage: ragwatch collector [-c FILE]

  -c, --config FILE   YAML configuration (default: $RAGWATCH_CONFIG)

Needs transport.kind: kafka and transport.kafka.brokers (env RAGWATCH_TRANSPORT=kafka,
RAGWATCH_KAFKA_BROKERS=host:port,...). Serves OTLP/HTTP on server.otlpPort and /metrics,
/healthz, /readyz on server.httpPort. While Kafka is unreachable it keeps serving OTLP and
buffers up to transport.kafka.producer.maxBufferMessages, dropping (and counting) the excess.`,
  async run(argv) {
    const { values } = parseArgs({ args: argv, options: { config: { type: 'string', short: 'c' } } });
    const config = loadConfig(values.config ? { file: values.config } : {});
    if (config.transport.kind !== 'kafka') {
      throw new ConfigError('config key "transport.kind": the collector produces to Kafka; set it to kafka (env RAGWATCH_TRANSPORT=kafka)', ['transport.kind']);
    }
    const logger = createLogger(config.log.level, logDestination(config.log.format));
    const app = await startApp(config, logger, { role: 'collector' });
    stopOnSignals({ logger, graceMs: config.server.shutdownGraceMs, what: 'stop ingest, flush the producer', shutdown: () => app.shutdown() });
  },
};

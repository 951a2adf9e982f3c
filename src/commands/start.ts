/**
 * `ragwatch start`: the whole pipeline in one process, until SIGINT/SIGTERM.
 * @module
 */
import { parseArgs } from 'node:util';
import { startApp } from '../roles/start.ts';
import { loadConfig } from '../config/load.ts';
import { createLogger, logDestination } from '../log.ts';
import { accountingSnapshot } from '../metrics/accounting.ts';
import { stopOnSignals } from './lifecycle.ts';
import type { Command } from './types.ts';

export const startCommand: Command = {
  name: 'start',
  summary: 'OTLP ingest → capture → sample → in-memory queue → score → metrics, alerts, the UI pages and the scheduled probes, in one process',
  usage: `usage: ragwatch start [-c FILE]

  -c, --config FILE   YAML configuration (default: $RAGWATCH_CONFIG, else embedded defaults)

OTLP/HTTP on server.otlpPort (4318) and OTLP/gRPC on server.otlpGrpcPort (4317; server.otlpGrpc:
false turns it off); /metrics, /healthz, /readyz and the UI on server.httpPort
(9464): the front door /, /examples, /review, /calibration, /weaknesses, /probes, /exams and their
JSON under /api/* (server.uiPort gives the UI a port of its own; server.apiToken protects it).
Runs the suites of probes.suites on their schedules.`,
  async run(argv) {
    const { values } = parseArgs({ args: argv, options: { config: { type: 'string', short: 'c' } } });
    const config = loadConfig(values.config ? { file: values.config } : {});
    const logger = createLogger(config.log.level, logDestination(config.log.format));
    const app = await startApp(config, logger);
    stopOnSignals({
      logger,
      graceMs: config.server.shutdownGraceMs,
      what: 'stop ingest, finish in-flight scoring',
      shutdown: async () => {
        await app.shutdown();
        // The final tally: residuals of 0 mean nothing was lost unexplained (DESIGN §9, §11 promise 7).
        return { accounting: await accountingSnapshot(app.pipeline.instruments.registry) };
      },
    });
  },
};

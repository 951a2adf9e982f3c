/**
 * `ragwatch prober`: the scheduled ground-truth probes alone (split mode; one replica), until
 * SIGINT/SIGTERM.
 * @module
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/load.ts';
import { createLogger, logDestination } from '../log.ts';
import { startProberRole } from '../roles/prober.ts';
import { stopOnSignals } from './lifecycle.ts';
import type { Command } from './types.ts';

export const proberCommand: Command = {
  name: 'prober',
  summary: 'runs the probe suites of probes.suites on their schedules (split mode: one replica, never per scorer)',
  usage: `usage: ragwatch prober [-c FILE]

  -c, --config FILE   YAML configuration (default: $RAGWATCH_CONFIG)

Asks the RAG service every suite's questions on its schedule.every and exports the ragwatch_probe_*
series and alerts on /metrics (server.httpPort), where /probes and /api/probes show the last runs
(behind server.apiToken as on the scorers). With transport.kind: kafka it joins each probe to
the score record of its captured trace on transport.kafka.topics.scores (consumer group
transport.kafka.proberGroupId); answers that arrive with sources but no captured trace are scored
here with the configured judge. Run exactly one: two probers probe twice. "ragwatch start" runs the
same prober in-process.`,
  async run(argv) {
    const { values } = parseArgs({ args: argv, options: { config: { type: 'string', short: 'c' } } });
    const config = loadConfig(values.config ? { file: values.config } : {});
    const logger = createLogger(config.log.level, logDestination(config.log.format));
    const app = await startProberRole(config, logger);
    stopOnSignals({ logger, graceMs: config.server.shutdownGraceMs, what: 'stop the schedules, abandon a run in progress', shutdown: () => app.shutdown() });
  },
};

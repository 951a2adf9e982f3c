/**
 * `ragwatch slices`: slice alerts and release verdicts over every scorer's records (split mode; one
 * replica), until SIGINT/SIGTERM.
 * @module
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/load.ts';
import { createLogger, logDestination } from '../log.ts';
import { startSlicesRole } from '../roles/slices.ts';
import { stopOnSignals } from './lifecycle.ts';
import type { Command } from './types.ts';

export const slicesCommand: Command = {
  name: 'slices',
  summary: 'slice alerts (a drop in one release, route or model) and release verdicts over all scorers\' records (split mode: one replica)',
  usage: `usage: ragwatch slices [-c FILE]

  -c, --config FILE   YAML configuration (default: $RAGWATCH_CONFIG)

Reads transport.kafka.topics.scores in consumer group transport.kafka.slicesGroupId (newest records)
and runs the slice alerts (alerts.slices: a Bernoulli CUSUM per release, route and generation model
of each service) and the release gate (alerts.releases) over the records of every scorer replica —
each scorer sees only its share, too few answers of a small canary to decide on, and alerts there
would fire once per replica. Exports ragwatch_slice_* and ragwatch_release_verdict on /metrics
(server.httpPort), /api/releases and /api/slices behind server.apiToken, and notifies as the
scorers do (alerts.alertmanager, alerts.webhook). Run exactly one. "ragwatch start" runs the same
monitor in process; "ragwatch scorer" never does.`,
  async run(argv) {
    const { values } = parseArgs({ args: argv, options: { config: { type: 'string', short: 'c' } } });
    const config = loadConfig(values.config ? { file: values.config } : {});
    const logger = createLogger(config.log.level, logDestination(config.log.format));
    const app = await startSlicesRole(config, logger);
    stopOnSignals({ logger, graceMs: config.server.shutdownGraceMs, what: 'leave the group, save the slice counts', shutdown: () => app.shutdown() });
  },
};

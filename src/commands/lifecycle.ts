/**
 * Signal handling shared by the long-running commands (start, collector, scorer): the first
 * SIGINT/SIGTERM runs the graceful shutdown, bounded by the grace period plus one second; a
 * second signal, or a shutdown that overruns, exits at once with code 1.
 * @module
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/load.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import { ConfigError } from '../errors.ts';
import { createLogger, logDestination, type Logger } from '../log.ts';

/** Options of {@link stopOnSignals}. */
export interface StopOnSignalsOptions {
  logger: Logger;
  /** Graceful shutdown budget (`server.shutdownGraceMs`), milliseconds. */
  graceMs: number;
  /** What shutting down means for this role (logged). */
  what: string;
  /** Stops the role; its resolved value is logged with the final "stopped" line. */
  shutdown: () => Promise<Record<string, unknown> | void>;
}

/** Installs SIGINT/SIGTERM handlers that shut the process down gracefully. */
export function stopOnSignals(options: StopOnSignalsOptions): void {
  const { logger } = options;
  let signalled = false;
  const stop = (signal: string) => {
    if (signalled) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    signalled = true;
    logger.info({ signal }, `shutting down: ${options.what}`);
    const hardStop = setTimeout(() => {
      logger.error('shutdown grace period exceeded; exiting');
      process.exit(1);
    }, options.graceMs + 1000);
    hardStop.unref();
    options.shutdown().then(
      (fields) => {
        logger.info(fields ?? {}, 'stopped');
        logger.flush();
      },
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

/**
 * Start of a Kafka role (`collector`, `assembler`, `scorer`): `-c FILE`, the configuration, which
 * must say `transport.kind: kafka` (`needs` says why, e.g. "the scorer consumes from Kafka"), and the logger.
 */
export function kafkaRoleSetup(argv: readonly string[], needs: string): { config: RagwatchConfig; logger: Logger } {
  const { values } = parseArgs({ args: [...argv], options: { config: { type: 'string', short: 'c' } } });
  const config = loadConfig(values.config ? { file: values.config } : {});
  if (config.transport.kind !== 'kafka') {
    throw new ConfigError(`config key "transport.kind": ${needs}; set it to kafka (env RAGWATCH_TRANSPORT=kafka)`, ['transport.kind']);
  }
  return { config, logger: createLogger(config.log.level, logDestination(config.log.format)) };
}

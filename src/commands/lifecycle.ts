/**
 * Signal handling shared by the long-running commands (start, collector, scorer): the first
 * SIGINT/SIGTERM runs the graceful shutdown, bounded by the grace period plus one second; a
 * second signal, or a shutdown that overruns, exits at once with code 1.
 * @module
 */
import type { Logger } from '../log.ts';

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

/**
 * Structured logs (pino, JSON lines on stderr so stdout stays free for CLI output).
 * Never log query, source or response text.
 * @module
 */
import { pino, type Logger } from 'pino';

export type { Logger };

/** Creates the process logger at the configured level. */
export function createLogger(level: string = 'info'): Logger {
  return pino({ level, base: { name: 'ragwatch' } }, pino.destination(2));
}

/** A logger that discards everything (library mode, tests). */
export const silentLogger: Logger = pino({ level: 'silent' });

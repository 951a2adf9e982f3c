/**
 * Structured logs (pino, JSON lines on stderr so stdout stays free for CLI output).
 * Never log query, source or response text.
 * @module
 */
import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Log fields that may hold captured text or credentials; pino replaces them with `[redacted]` at
 * the top level and one level down, as a second line of defence behind "never log text".
 */
export const LOG_REDACT_PATHS: readonly string[] = ['query', 'response', 'sources', 'content', 'triplet', 'body', 'prompt', 'messages', 'apiKey', 'hmacKey', 'authorization', 'bearerToken'].flatMap(
  (k) => [k, `*.${k}`],
);

/** Creates the process logger at the configured level. */
export function createLogger(level: string = 'info', destination: pino.DestinationStream = pino.destination(2)): Logger {
  return pino({ level, base: { name: 'ragwatch' }, redact: { paths: [...LOG_REDACT_PATHS], censor: '[redacted]' } }, destination);
}

/** A logger that discards everything (library mode, tests). */
export const silentLogger: Logger = pino({ level: 'silent' });

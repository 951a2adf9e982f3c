/**
 * Structured logs (pino on stderr so stdout stays free for CLI output): JSON lines, or pretty
 * (pino-pretty) on a terminal. Never log query, source or response text.
 * @module
 */
import { pino, type Logger } from 'pino';
import pinoPretty from 'pino-pretty';

export type { Logger };

/**
 * Log fields that may hold captured text or credentials; pino replaces them with `[redacted]` at
 * the top level and one level down, as a second line of defence behind "never log text".
 */
export const LOG_REDACT_PATHS: readonly string[] = ['query', 'response', 'sources', 'content', 'triplet', 'body', 'prompt', 'messages', 'apiKey', 'hmacKey', 'authorization', 'bearerToken', 'apiToken'].flatMap(
  (k) => [k, `*.${k}`],
);

/** Log line format: `auto` = pretty when stderr is a terminal, else JSON. */
export type LogFormat = 'auto' | 'json' | 'pretty';

/** The stderr destination for a format: JSON lines, or pino-pretty's synchronous stream. */
export function logDestination(format: LogFormat = 'auto', isTty: boolean = process.stderr.isTTY === true): pino.DestinationStream {
  const pretty = format === 'pretty' || (format === 'auto' && isTty);
  // sync: a crash or process.exit must not lose the last lines, as with pino.destination(2).
  return pretty ? pinoPretty({ destination: 2, sync: true, colorize: isTty, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname,name' }) : pino.destination(2);
}

/** Creates the process logger at the configured level (stderr, format per {@link logDestination}). */
export function createLogger(level: string = 'info', destination: pino.DestinationStream = logDestination()): Logger {
  return pino({ level, base: { name: 'ragwatch' }, redact: { paths: [...LOG_REDACT_PATHS], censor: '[redacted]' } }, destination);
}

/** A logger that discards everything (library mode, tests). */
export const silentLogger: Logger = pino({ level: 'silent' });

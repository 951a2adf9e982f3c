/**
 * Typed errors with stable codes (code-style C8). Components return result objects at plugin
 * boundaries; these errors are for the edges (config, CLI, HTTP) and for `cause` chains.
 * @module
 */

/** Stable error codes; never renamed once released. */
export type RagwatchErrorCode =
  | 'RAGWATCH_CONFIG_INVALID'
  | 'RAGWATCH_CONFIG_UNREADABLE'
  | 'RAGWATCH_OTLP_INVALID'
  | 'RAGWATCH_MODEL_LOAD_FAILED'
  | 'RAGWATCH_MODEL_MISSING'
  | 'RAGWATCH_MODEL_INVALID'
  | 'RAGWATCH_MODEL_DOWNLOAD_FAILED'
  | 'RAGWATCH_JUDGE_SHED'
  | 'RAGWATCH_JUDGE_FAILED'
  | 'RAGWATCH_JUDGE_TIMEOUT'
  | 'RAGWATCH_JUDGE_MALFORMED'
  | 'RAGWATCH_JUDGE_RATE_LIMITED'
  | 'RAGWATCH_JUDGE_UNAVAILABLE'
  | 'RAGWATCH_JUDGE_CIRCUIT_OPEN'
  | 'RAGWATCH_JUDGE_REJECTED'
  | 'RAGWATCH_JUDGE_CONTEXT_EXCEEDED'
  | 'RAGWATCH_TRANSPORT_FAILED'
  | 'RAGWATCH_KAFKA_TOPIC'
  | 'RAGWATCH_SHUTDOWN'
  | 'RAGWATCH_PROBE_SUITE_INVALID';

/** Base class of every error ragwatch raises on purpose. */
export class RagwatchError extends Error {
  readonly code: RagwatchErrorCode;
  constructor(code: RagwatchErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RagwatchError';
    this.code = code;
  }
}

/** A configuration value is missing, malformed or out of range; the message names the key. */
export class ConfigError extends RagwatchError {
  /** Dotted config keys (and env names) at fault. */
  readonly keys: string[];
  constructor(message: string, keys: string[], code: RagwatchErrorCode = 'RAGWATCH_CONFIG_INVALID') {
    super(code, message);
    this.name = 'ConfigError';
    this.keys = keys;
  }
}

/** An OTLP request body could not be decoded; `status` is the HTTP status to answer with. */
export class OtlpDecodeError extends RagwatchError {
  readonly status: 400 | 413 | 415;
  constructor(message: string, status: 400 | 413 | 415 = 400, options?: { cause?: unknown }) {
    super('RAGWATCH_OTLP_INVALID', message, options);
    this.name = 'OtlpDecodeError';
    this.status = status;
  }
}

/** Turns anything thrown into a short, printable message. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  try {
    return String(err);
  } catch {
    return 'unprintable error';
  }
}

/** A bad probe or exam suite file; `keys` name the suite keys at fault (e.g. `templates.employee_department.sql`). */
export class SuiteError extends ConfigError {
  constructor(message: string, keys: string[]) {
    super(message, keys, 'RAGWATCH_PROBE_SUITE_INVALID');
    this.name = 'SuiteError';
  }
}

/**
 * The process environment, for the few readers outside the main configuration: worker threads and
 * the `${VAR}` references of suite and exam files (only `src/config/` reads the process environment).
 * @module
 */

/** The process environment (read-only view), to expand `${VAR}` references in a capability's own file format. */
export function processEnv(): Readonly<Record<string, string | undefined>> {
  return process.env;
}

/**
 * This process's environment without `NODE_OPTIONS`: Node runs the preloads named there
 * (`--import`, `--require`) in every worker whatever its `execArgv`, and a host's preload is often
 * its OpenTelemetry set-up, which must not run inside ragwatch's threads.
 */
export function workerEnv(): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _omitted, ...env } = process.env;
  return env;
}

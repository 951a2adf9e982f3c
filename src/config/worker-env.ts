/**
 * The environment ragwatch's worker threads start with (only `src/config/` reads the process
 * environment).
 * @module
 */

/**
 * This process's environment without `NODE_OPTIONS`: Node runs the preloads named there
 * (`--import`, `--require`) in every worker whatever its `execArgv`, and a host's preload is often
 * its OpenTelemetry set-up, which must not run inside ragwatch's threads.
 */
export function workerEnv(): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _omitted, ...env } = process.env;
  return env;
}

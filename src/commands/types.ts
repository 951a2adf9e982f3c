/**
 * CLI command contract: one file per command in `src/commands/`, registered in `src/cli.ts`.
 * @module
 */

export interface Command {
  name: string;
  /** One line for `ragwatch --help`. */
  summary: string;
  /** Full usage text for `ragwatch <name> --help`. */
  usage: string;
  /**
   * Runs the command with its own arguments (after the command name). Sets `process.exitCode`
   * on failure; may throw ConfigError (exit 2) or any error (exit 1).
   */
  run(argv: string[]): Promise<void>;
}

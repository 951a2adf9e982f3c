/**
 * The `ragwatch` command line. Exit codes: 0 ok, 1 runtime failure, 2 bad usage or configuration.
 * @module
 */
import { alertsCommand } from './commands/alerts.ts';
import { releaseCommand } from './commands/release.ts';
import { slicesCommand } from './commands/slices.ts';
import { assemblerCommand } from './commands/assembler.ts';
import { calibrateCommand } from './commands/calibrate.ts';
import { collectorCommand } from './commands/collector.ts';
import { extractCommand } from './commands/extract.ts';
import { labelsCommand } from './commands/labels.ts';
import { modelsCommand } from './commands/models.ts';
import { weaknessesCommand } from './commands/weaknesses.ts';
import { examCommand } from './commands/exam.ts';
import { evaluatorsCommand } from './commands/evaluators.ts';
import { rulesCommand } from './commands/rules.ts';
import { scoreCommand } from './commands/score.ts';
import { probeCommand } from './commands/probe.ts';
import { proberCommand } from './commands/prober.ts';
import { scorerCommand } from './commands/scorer.ts';
import { startCommand } from './commands/start.ts';
import type { Command } from './commands/types.ts';
import { ConfigError, errorMessage } from './errors.ts';

/** Every command, by name (one file each in src/commands/). */
export const COMMANDS: ReadonlyMap<string, Command> = new Map([startCommand, collectorCommand, assemblerCommand, scorerCommand, scoreCommand, rulesCommand, evaluatorsCommand, alertsCommand, releaseCommand, extractCommand, probeCommand, proberCommand, slicesCommand, calibrateCommand, labelsCommand, weaknessesCommand, examCommand, modelsCommand].map((c) => [c.name, c]));

function usage(): string {
  const lines = [...COMMANDS.values()].map((c) => `  ${c.name.padEnd(12)} ${c.summary}`);
  return `usage: ragwatch <command> [options]\n\ncommands:\n${lines.join('\n')}\n\nRun "ragwatch <command> --help" for its options. Environment overrides: docs/configuration.md`;
}

/** Runs the CLI with the given arguments (without `node` and the script). */
export async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (!name || name === '-h' || name === '--help') {
    process.stdout.write(`${usage()}\n`);
    process.exitCode = name ? 0 : 2;
    return;
  }
  const command = COMMANDS.get(name);
  if (!command) {
    process.stderr.write(`ragwatch: unknown command "${name}"\n${usage()}\n`);
    process.exitCode = 2;
    return;
  }
  if (rest.includes('-h') || rest.includes('--help')) {
    process.stdout.write(`${command.usage}\n`);
    return;
  }
  try {
    await command.run(rest);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`ragwatch: ${err.message}\n`);
      process.exitCode = 2;
      return;
    }
    const code = (err as { code?: string }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(`ragwatch ${name}: ${errorMessage(err)}\n${command.usage}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`ragwatch: ${errorMessage(err)}\n`);
    process.exitCode = 1;
  }
}

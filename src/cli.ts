/**
 * The `ragwatch` command line. Exit codes: 0 ok, 1 runtime failure, 2 bad usage or configuration.
 * @module
 */
import { parseArgs } from 'node:util';
import { startApp } from './app.ts';
import { loadConfig } from './config/load.ts';
import { ConfigError, errorMessage } from './errors.ts';
import { createLogger } from './log.ts';

const USAGE = `usage: ragwatch <command> [options]

commands:
  start        OTLP ingest → capture → sample → in-memory queue → score → metrics, in one process

options:
  -c, --config FILE   YAML configuration (default: $RAGWATCH_CONFIG, else embedded defaults)
  -h, --help          show this help

environment: see docs/configuration.md (RAGWATCH_OTLP_PORT, RAGWATCH_HTTP_PORT, RAGWATCH_HOST, …)`;

async function start(configFile: string | undefined): Promise<void> {
  const config = loadConfig(configFile ? { file: configFile } : {});
  const logger = createLogger(config.log.level);
  const app = await startApp(config, logger);
  let signalled = false;
  const stop = (signal: string) => {
    if (signalled) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    signalled = true;
    logger.info({ signal }, 'shutting down');
    const hardStop = setTimeout(() => {
      logger.error('shutdown grace period exceeded; exiting');
      process.exit(1);
    }, config.server.shutdownGraceMs + 1000);
    hardStop.unref();
    app.shutdown().then(
      () => {
        logger.info('stopped');
        logger.flush();
        process.exitCode = 0;
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

/** Runs the CLI with the given arguments (without `node` and the script). */
export async function main(argv: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { config: { type: 'string', short: 'c' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    process.stderr.write(`ragwatch: ${errorMessage(err)}\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  const [command] = parsed.positionals;
  if (parsed.values.help || !command) {
    process.stdout.write(`${USAGE}\n`);
    process.exitCode = command || parsed.values.help ? 0 : 2;
    return;
  }
  try {
    switch (command) {
      case 'start':
        await start(parsed.values.config);
        return;
      default:
        process.stderr.write(`ragwatch: unknown command "${command}"\n${USAGE}\n`);
        process.exitCode = 2;
    }
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`ragwatch: ${err.message}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`ragwatch: ${errorMessage(err)}\n`);
    process.exitCode = 1;
  }
}


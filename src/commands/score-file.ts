/**
 * Opening a JSON-lines file of score records for the commands that replay one (`alerts backtest`,
 * `release compare`).
 * @module
 */
import { createReadStream, statSync } from 'node:fs';
import { createInterface, type Interface } from 'node:readline';
import { ConfigError } from '../errors.ts';

/** The lines of `file`; a ConfigError naming the file when it is missing or not a regular file. */
export function scoreFileLines(file: string): Interface {
  try {
    if (!statSync(file).isFile()) throw new Error('not a file');
  } catch (err) {
    throw new ConfigError(`cannot read ${file}: ${(err as Error).message}`, []);
  }
  return createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
}

/**
 * `ragwatch rules`: prints the Prometheus recording and alerting rules generated from the config.
 * @module
 */
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { loadConfig } from '../config/load.ts';
import { generateRules } from '../roles/rules.ts';
import type { Command } from './types.ts';

/** The `rules` command. */
export const rulesCommand: Command = {
  name: 'rules',
  summary: 'print the Prometheus alerting + recording rules generated from the config (YAML)',
  usage: `usage: ragwatch rules [-c FILE]

  -c, --config FILE   YAML configuration (default: $RAGWATCH_CONFIG, else embedded defaults)

Prints a Prometheus rule file (groups: recording, alerts) to stdout; load it with rule_files or
check it with "promtool check rules".`,
  async run(argv) {
    const { values } = parseArgs({ args: argv, options: { config: { type: 'string', short: 'c' } } });
    const config = loadConfig({ ...(values.config ? { file: values.config } : {}), offline: true });
    process.stdout.write(stringify(generateRules(config), { lineWidth: 0 }));
  },
};

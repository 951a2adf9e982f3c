/**
 * `ragwatch probe list SUITE.yaml`: the ground-truth probe queries a suite generates, with their
 * answers, asking nothing (docs/probes.md).
 * @module
 */
import { parseArgs } from 'node:util';
import { loadProbeSuite } from '../config/load-suite.ts';
import { ConfigError } from '../errors.ts';
import { generateProbes, openFacts } from '../probes/generate.ts';
import type { Command } from './types.ts';

export const probeCommand: Command = {
  name: 'probe',
  summary: 'ground-truth probes: "probe list SUITE.yaml" prints the generated questions and their answers',
  usage: `usage: ragwatch probe list [--json] SUITE.yaml

  list     every generated query (templates × fill-ins × wordings and perturbations) with its
           ground truth, asking nothing; exit 2 with the template and key named when the suite is bad
  --json   one JSON object per line: {suite, template, group, variant, query, fill, truth, match}`,
  async run(argv) {
    const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean', default: false } } });
    const [sub, file] = positionals;
    if (sub !== 'list' || file === undefined) throw new ConfigError('probe: usage: ragwatch probe list [--json] SUITE.yaml', []);
    const { suite, facts } = loadProbeSuite(file);
    const db = openFacts(facts);
    let queries;
    try {
      queries = generateProbes(suite, db);
    } finally {
      db.close();
    }
    if (values.json) {
      for (const q of queries) process.stdout.write(`${JSON.stringify(q)}\n`);
      return;
    }
    let group = '';
    for (const q of queries) {
      if (q.group !== group) {
        group = q.group;
        process.stdout.write(`\n${q.template} ${JSON.stringify(q.fill)} → ${q.truth.map((t) => JSON.stringify(t)).join(', ')} (${q.match})\n`);
      }
      process.stdout.write(`  ${q.variant.padEnd(10)} ${q.query}\n`);
    }
    const groups = new Set(queries.map((q) => q.group)).size;
    process.stdout.write(`\n${queries.length} queries in ${groups} groups from ${suite.templates.length} templates (suite ${suite.suite})\n`);
  },
};

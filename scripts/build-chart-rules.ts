/**
 * Writes the Helm chart's Prometheus rules from the same generator as `ragwatch rules`
 * (one source of truth): `helm/ragwatch/files/rules.yaml` = `generateRules(config)` where config is
 * the chart's default `config` (values.yaml) with ragwatch's defaults filled in, and
 * `files/rules-alerts.yaml` = the `config.alerts` it was generated from (the chart refuses to render
 * these rules when a release's config.alerts differs).
 *
 * `--check` writes nothing and exits 1 when a committed file differs. `--values FILE` prints the rules
 * for another values file's `config` (what `ragwatch rules -c` prints for that config, with its
 * `evaluators.files`; credentials and TLS files, which live in Secrets, are not needed), e.g.
 * `node scripts/build-chart-rules.ts --values my-values.yaml > rules.yaml`.
 * @module
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';
import { loadConfig } from '../src/config/load.ts';
import type { RagwatchConfig } from '../src/config/schema.ts';
import { generateRules } from '../src/roles/rules.ts';

const CHART = fileURLToPath(new URL('../helm/ragwatch/', import.meta.url));

/** The rule file text exactly as `ragwatch rules` prints it. */
export function rulesYaml(config: RagwatchConfig): string {
  return stringify(generateRules(config), { lineWidth: 0 });
}

/** The `config` object of a values file (`{}` when absent). */
export function valuesConfig(valuesFile: string): Record<string, unknown> {
  const values = (parse(readFileSync(valuesFile, 'utf8')) ?? {}) as { config?: Record<string, unknown> };
  return values.config ?? {};
}

/**
 * The rules of a values file: generated from its `config` (loaded offline, as `ragwatch rules` loads it:
 * the credentials the pods get from Secrets and the TLS files mounted in them are not needed), with the
 * evaluators of `evaluators.files` (written to a temporary directory, removed after) as the chart mounts them.
 */
export function rulesOfValues(valuesFile: string): string {
  const values = (parse(readFileSync(valuesFile, 'utf8')) ?? {}) as { config?: Record<string, unknown>; evaluators?: { files?: Record<string, string> } };
  const config = values.config ?? {};
  const files = values.evaluators?.files ?? {};
  if (Object.keys(files).length === 0) return rulesYaml(loadConfig({ env: {}, overrides: config, offline: true }));
  const dir = mkdtempSync(join(tmpdir(), 'ragwatch-evaluators-'));
  try {
    for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, basename(name)), content);
    return rulesYaml(loadConfig({ env: {}, overrides: { ...config, evaluators: dir }, offline: true }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Builds both chart rule files; returns the ones whose committed content differs. */
export function buildChartRules(check: boolean): string[] {
  const config = valuesConfig(join(CHART, 'values.yaml'));
  const outputs: Record<string, string> = {
    'files/rules.yaml': rulesYaml(loadConfig({ env: {}, overrides: config, offline: true })),
    'files/rules-alerts.yaml': stringify(config.alerts ?? {}, { lineWidth: 0 }),
  };
  const stale: string[] = [];
  for (const [rel, text] of Object.entries(outputs)) {
    const path = join(CHART, rel);
    if (existsSync(path) && readFileSync(path, 'utf8') === text) continue;
    stale.push(`helm/ragwatch/${rel}`);
    if (!check) writeFileSync(path, text);
  }
  return stale;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1] && process.argv[2] === '--values') {
  // `--values FILE`: print the rules for that values file's `config` (for --set-file prometheusRule.rules=...).
  process.stdout.write(rulesOfValues(process.argv[3] ?? ''));
} else if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  const stale = buildChartRules(check);
  if (check && stale.length > 0) {
    process.stderr.write(`chart rules out of date (run npm run chart:rules): ${stale.join(', ')}\n`);
    process.exitCode = 1;
  } else {
    process.stdout.write(stale.length ? `${check ? 'stale' : 'wrote'}: ${stale.join(', ')}\n` : 'chart rules up to date\n');
  }
}

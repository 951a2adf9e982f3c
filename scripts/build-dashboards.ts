/**
 * Builds the Grafana dashboards (dashboards/src/*.ts, written with @grafana/grafana-foundation-sdk)
 * into committed JSON: `dashboards/<file>` and the Helm chart's copy
 * `helm/ragwatch/files/dashboards/<file>` (helm can only read files inside the chart).
 *
 * `--check` writes nothing and exits 1 when a committed file differs from a fresh build.
 * @module
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DASHBOARDS, dashboardJson } from '../dashboards/src/index.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** Output directories, relative to the repository root. */
export const DASHBOARD_DIRS = ['dashboards', join('helm', 'ragwatch', 'files', 'dashboards')] as const;

/** Builds every dashboard; returns the paths whose content differs from what is on disk. */
export function buildDashboards(check: boolean): string[] {
  const stale: string[] = [];
  for (const def of DASHBOARDS) {
    const json = dashboardJson(def.build());
    for (const dir of DASHBOARD_DIRS) {
      const path = join(ROOT, dir, def.file);
      const current = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
      if (current === json) continue;
      stale.push(join(dir, def.file));
      if (!check) {
        mkdirSync(join(ROOT, dir), { recursive: true });
        writeFileSync(path, json);
      }
    }
  }
  return stale;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  const stale = buildDashboards(check);
  if (check && stale.length > 0) {
    process.stderr.write(`dashboards out of date (run npm run dashboards:build): ${stale.join(', ')}\n`);
    process.exitCode = 1;
  } else {
    process.stdout.write(stale.length ? `${check ? 'stale' : 'wrote'}: ${stale.join(', ')}\n` : 'dashboards up to date\n');
  }
}

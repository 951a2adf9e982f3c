/**
 * docs/deploy.md stays runnable: every file, npm script, values key path and alert it names exists.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from '../helpers/process.ts';

const doc = readFileSync(join(ROOT, 'docs', 'deploy.md'), 'utf8');

describe('docs/deploy.md', () => {
  it('names only files that exist', () => {
    const paths = [...new Set(doc.match(/\b(?:helm|config|scripts|docs)\/[\w./-]+\.(?:ya?ml|ts|md|json)\b/g) ?? [])];
    expect(paths.length).toBeGreaterThan(5);
    expect(paths.filter((p) => !existsSync(join(ROOT, p)))).toEqual([]);
  });

  it('runs only npm scripts that exist', () => {
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    const used = [...doc.matchAll(/npm run ([\w:-]+)/g)].map((m) => m[1]!);
    expect(used).toContain('demo');
    expect(used.filter((s) => !(s in scripts))).toEqual([]);
  });

  it('walks from helm install to the test alert that the chart example configures', () => {
    expect(doc).toMatch(/helm install ragwatch \.\/helm\/ragwatch/);
    const values = parse(readFileSync(join(ROOT, 'helm', 'examples', 'test-alert.values.yaml'), 'utf8')) as {
      config: { alerts: { metrics: Record<string, { severity?: string; alert?: boolean }> } };
    };
    const alerting = Object.entries(values.config.alerts.metrics).filter(([, a]) => a.alert !== false);
    expect(alerting.map(([m]) => m)).toEqual(['grounding_lexical']);
    expect(doc).toContain('RagwatchGroundingLexicalLow');
    expect(doc).toContain(`severity="${alerting[0]![1].severity}"`);
  });

  it('mentions every values key the sidecar and secrets rely on', () => {
    const values = parse(readFileSync(join(ROOT, 'helm', 'ragwatch', 'values.yaml'), 'utf8')) as Record<string, unknown>;
    for (const path of ['metrics.serviceMonitor.additionalLabels', 'grafanaDashboards.folderAnnotation', 'prometheusRule.rules']) {
      expect(doc).toContain(path.split('.').slice(-2).join('.'));
      const value = path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], values);
      expect(value, path).toBeDefined();
    }
  });
});

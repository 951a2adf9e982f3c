/**
 * `generateRules` / `ragwatch rules`: structure and defaults. The rules through a real promtool:
 * `rules.integration.test.ts`.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config/load.ts';
import { alertName, meanRecordName } from '../../src/metrics/rules.ts';
import { generateRules } from '../../src/roles/rules.ts';
import { METRIC_NAMES } from '../../src/triplet.ts';
import { scratchDir } from '../helpers/prometheus.ts';
import { BIN, ROOT } from '../helpers/process.ts';
import { config } from './rules-config.ts';

describe('generateRules', () => {
  it('emits recording rules per window and one alert per alerting metric', () => {
    const { groups } = generateRules(config());
    // Change alerts (tests/change/rules.test.ts) come with the page-severity groundedness alert.
    expect(groups.map((g) => g.name)).toEqual(['ragwatch-quality-recording', 'ragwatch-quality-alerts', 'ragwatch-change-recording', 'ragwatch-change-alerts', 'ragwatch-slice-recording', 'ragwatch-slice-alerts', 'ragwatch-feedback-recording', 'ragwatch-feedback-alerts', 'ragwatch-probe-alerts', 'ragwatch-exam-alerts']);
    expect(groups[0]!.rules.map((r) => r.record)).toEqual([meanRecordName('30m'), 'ragwatch:score_samples:increase30m']);
    const alerts = groups[1]!.rules;
    expect(alerts.map((r) => r.alert)).toEqual([alertName('groundedness')]);
    const rule = alerts[0]!;
    expect(rule).toMatchObject({ for: '10m', keep_firing_for: '5m', labels: { severity: 'page' } });
    expect(String(rule.expr)).toContain('< 0.8');
    expect(String(rule.expr)).toContain('>= 20');
    expect(rule.annotations).toMatchObject({ runbook_url: 'https://runbooks.example/groundedness' });
    expect(String((rule.annotations as Record<string, string>).examples)).toMatch(/^https:\/\/ragwatch\.example\/examples\?metric=groundedness&below=0\.8/);
  });

  it('omits keep_firing_for when configured as 0s', () => {
    const { groups } = generateRules(config({ keepFiringFor: '0s' }));
    expect(groups[1]!.rules[0]).not.toHaveProperty('keep_firing_for');
  });

  it('`ragwatch rules` prints the same rules as YAML', () => {
    const s = scratchDir('ragwatch-rules-cli-');
    try {
      const file = s.write('ragwatch.yaml', { alerts: { metrics: { groundedness: { threshold: 0.75 } } } });
      const r = spawnSync(process.execPath, [BIN, 'rules', '-c', file], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, RAGWATCH_LOG_LEVEL: 'silent' } });
      expect(r.status, r.stderr).toBe(0);
      expect(parse(r.stdout)).toEqual(generateRules(loadConfig({ env: {}, file })));
    } finally {
      s.cleanup();
    }
  });
});

describe('default alerts', () => {
  it('alert on every metric a judge emits, with page severity for groundedness-type and the risk metrics, ticket for the rest', () => {
    const defaults = loadConfig({ env: {} });
    const alerts = generateRules(defaults).groups.find((g) => g.name === 'ragwatch-quality-alerts')!.rules;
    expect(alerts.map((r) => r.alert).sort()).toEqual(METRIC_NAMES.map(alertName).sort());
    const PAGE = ['groundedness', 'faithfulness', 'hallucination_free', 'claim_support', 'grounding_lexical', 'pii_free', 'non_toxic'];
    for (const metric of METRIC_NAMES) {
      expect(defaults.alerts.metrics[metric], metric).toMatchObject({ alert: true, severity: PAGE.includes(metric) ? 'page' : 'ticket' });
    }
  });
});

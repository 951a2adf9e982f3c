/**
 * Configured evaluators in the generated Prometheus rules, through a real promtool: `ragwatch rules -c`
 * names each evaluator (threshold alerts for all, change and slice alerts for a page-severity one, burn-rate
 * alerts for one with an SLO), `promtool check rules` accepts them, and `promtool test rules` fires the
 * evaluator's alert when its series drops, naming the metric.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { changeAlertName } from '../../src/change/rules.ts';
import { alertName } from '../../src/metrics/rules.ts';
import { generateRules } from '../../src/roles/rules.ts';
import { sliceAlertName } from '../../src/slices/notice.ts';
import { sloAlertName } from '../../src/slo/rules.ts';
import { BIN, ROOT } from '../helpers/process.ts';
import { haveBinaries, promtool, scratchDir } from '../helpers/prometheus.ts';
import { counterValues } from '../helpers/promtool-series.ts';
import { WORKED_EXAMPLES } from './worked-examples.ts';

describe.skipIf(!haveBinaries('evaluator rules through promtool', 'promtool'))('evaluators in the generated rules (promtool)', () => {
  const s = scratchDir('ragwatch-evaluator-rules-');
  afterAll(() => s.cleanup());
  const configFile = s.write('ragwatch.yaml', { alerts: { examplesUrl: 'https://ragwatch.example' }, evaluators: WORKED_EXAMPLES });
  const config = loadConfig({ env: {}, file: configFile });

  it('ragwatch rules -c names every evaluator, and promtool check rules accepts the file', () => {
    const r = spawnSync(process.execPath, [BIN, 'rules', '-c', configFile], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    for (const e of WORKED_EXAMPLES) {
      expect(r.stdout).toContain(`alert: ${alertName(e.name)}`);
      expect(r.stdout).toContain(`metric="${e.name}"`);
    }
    // cites_source and no_dosage_advice are page severity: change (page and ticket tiers) and slice alerts too.
    for (const m of ['cites_source', 'no_dosage_advice']) {
      expect(r.stdout).toContain(`alert: ${changeAlertName(m, 'page')}`);
      expect(r.stdout).toContain(`alert: ${sliceAlertName(m)}`);
    }
    expect(r.stdout).not.toContain(`alert: ${changeAlertName('answer_tone', 'page')}`);
    // json_answer has an SLO: burn-rate alerts.
    expect(r.stdout).toContain(`alert: ${sloAlertName('json_answer')}`);
    const file = s.write('rules.yml', r.stdout);
    const check = promtool(['check', 'rules', file]);
    expect(check.status, check.stdout + check.stderr).toBe(0);
    expect(check.stdout).toMatch(/SUCCESS: \d+ rules found/);
  });

  it('promtool test rules: a drop of cites_source fires RagwatchCitesSourceLow naming the metric; a healthy service does not', () => {
    const rules = s.write('rules-test-input.yml', generateRules(config));
    const lbl = (l: Record<string, string>) => `{${Object.entries(l).map(([k, v]) => `${k}="${v}"`).join(',')}}`;
    const input: Array<{ series: string; values: string }> = [];
    // Two answers a minute: service "shop" cites a source in half of them (0.5 < 0.9), "docs" in all.
    for (const [service, share] of [['shop', 0.5], ['docs', 1]] as const) {
      const l = { metric: 'cites_source', judge: 'embedded', service };
      input.push({ series: `ragwatch_score_ratio_sum${lbl(l)}`, values: counterValues(60, () => 2 * share) });
      input.push({ series: `ragwatch_score_ratio_count${lbl(l)}`, values: counterValues(60, () => 2) });
      input.push({ series: `ragwatch_score_samples_total${lbl(l)}`, values: counterValues(60, () => 2) });
    }
    const alertname = alertName('cites_source');
    const test = {
      rule_files: [rules],
      evaluation_interval: '30s',
      tests: [
        {
          interval: '1m',
          input_series: input,
          alert_rule_test: [
            { eval_time: '5m', alertname, exp_alerts: [] },
            {
              eval_time: '45m',
              alertname,
              exp_alerts: [
                {
                  exp_labels: { metric: 'cites_source', judge: 'embedded', service: 'shop', severity: 'page' },
                  exp_annotations: {
                    summary: 'cites_source 0.50 < 0.9 over 30m (n=60) for shop',
                    description: 'The 30m weighted mean of cites_source (embedded judge) for service shop is 0.500, below the threshold 0.9, over 60 judged samples (minimum 20).',
                    value: '0.500',
                    samples: '60',
                    diagnosis: 'no diagnosis: the component metrics are within their thresholds or not measured',
                    examples: 'https://ragwatch.example/examples?metric=cites_source&below=0.9&service=shop',
                  },
                },
              ],
            },
          ],
        },
      ],
    };
    const r = promtool(['test', 'rules', s.write('rules_test.yml', test)]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('SUCCESS');
  });
});

/**
 * Alerts `on: calibrated` in the generated rules, through a real `promtool test rules`: a raw mean of
 * 0.9 (healthy against 0.8) with a calibrated P(good) of 0.2 fires (the in-process twin:
 * `alerts.test.ts`).
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { generateRules } from '../../src/roles/rules.ts';
import { haveBinaries, promtool, scratchDir } from '../helpers/prometheus.ts';

describe.skipIf(!haveBinaries('calibrated alert rules', 'promtool'))('alerts on the calibrated probability × promtool', () => {
  it('fire in the generated rules from the calibrated sum and count', () => {
    const s = scratchDir('ragwatch-calrules-');
    try {
      const rules = s.write('rules.yml', generateRules(loadConfig({ env: {}, overrides: { alerts: { metrics: { grounding_lexical: { threshold: 0.5, window: '5m', minSamples: 3, for: '1m', on: 'calibrated', severity: 'page' } } } } })));
      const lbl = '{metric="grounding_lexical",judge="embedded",service="rag"}';
      const counter = (perMin: number) => `0+${perMin}x20`;
      const test = {
        rule_files: [rules],
        evaluation_interval: '30s',
        tests: [{
          interval: '1m',
          input_series: [
            { series: `ragwatch_score_ratio_sum${lbl}`, values: counter(2 * 0.9) },
            { series: `ragwatch_score_ratio_count${lbl}`, values: counter(2) },
            { series: `ragwatch_score_samples_total${lbl}`, values: counter(2) },
            { series: `ragwatch_score_calibrated_ratio_sum${lbl}`, values: counter(2 * 0.2) },
            { series: `ragwatch_score_calibrated_ratio_count${lbl}`, values: counter(2) },
          ],
          promql_expr_test: [{ expr: 'ALERTS{alertstate="firing"}', eval_time: '10m', exp_samples: [{ labels: 'ALERTS{alertname="RagwatchGroundingLexicalLow",alertstate="firing",judge="embedded",metric="grounding_lexical",service="rag",severity="page"}', value: 1 }] }],
        }],
      };
      const r = promtool(['test', 'rules', s.write('test.yml', test)]);
      expect(r.status, r.stdout + r.stderr).toBe(0);
    } finally {
      s.cleanup();
    }
  });
});

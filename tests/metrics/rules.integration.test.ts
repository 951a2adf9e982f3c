/**
 * The generated rules through a real promtool: `promtool check rules` on the default and a customised
 * configuration; `promtool test rules` firing, not firing on too few samples, recovering with
 * keep_firing_for, with the diagnosis annotation.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { alertName, meanRecordName } from '../../src/metrics/rules.ts';
import { generateRules } from '../../src/roles/rules.ts';
import { EMBEDDED_METRICS, LLM_METRICS, METRIC_NAMES } from '../../src/triplet.ts';
import { haveBinaries, promtool, scratchDir } from '../helpers/prometheus.ts';
import { counterValues } from '../helpers/promtool-series.ts';
import { config } from './rules-config.ts';

describe.skipIf(!haveBinaries('promtool rules tests', 'promtool'))('promtool', () => {
  const s = scratchDir('ragwatch-promtool-');
  afterAll(() => s.cleanup());

  it('check rules accepts the default and a customised configuration', () => {
    for (const [name, cfg] of [['default.yml', loadConfig({ env: {} })], ['custom.yml', config()]] as const) {
      const file = s.write(name, generateRules(cfg));
      const r = promtool(['check', 'rules', file]);
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(/SUCCESS: \d+ rules found/);
    }
  });

  it('test rules: every default alert fires below its threshold with its severity, and not just above it', () => {
    const defaults = loadConfig({ env: {} });
    const rules = s.write('default-rules.yml', generateRules(defaults));
    const lbl = (l: Record<string, string>) => `{${Object.entries(l).map(([k, v]) => `${k}="${v}"`).join(',')}}`;
    const input: Array<{ series: string; values: string }> = [];
    const promql: Array<Record<string, unknown>> = [];
    for (const metric of METRIC_NAMES) {
      const a = defaults.alerts.metrics[metric]!;
      const judge = (EMBEDDED_METRICS as readonly string[]).includes(metric) && !(LLM_METRICS as readonly string[]).includes(metric) ? 'embedded' : 'llm';
      // service "low": 0.1 under the threshold; service "ok": 0.05 over it; two samples a minute each.
      for (const [service, score] of [['low', a.threshold - 0.1], ['ok', a.threshold + 0.05]] as const) {
        const l = { metric, judge, service };
        input.push({ series: `ragwatch_score_ratio_sum${lbl(l)}`, values: counterValues(60, () => 2 * score) });
        input.push({ series: `ragwatch_score_ratio_count${lbl(l)}`, values: counterValues(60, () => 2) });
        input.push({ series: `ragwatch_score_samples_total${lbl(l)}`, values: counterValues(60, () => 2) });
      }
      const alertname = alertName(metric);
      promql.push({
        expr: `ALERTS{alertname="${alertname}",alertstate="firing"}`,
        eval_time: '45m',
        exp_samples: [{ labels: `ALERTS${lbl({ alertname, alertstate: 'firing', judge, metric, service: 'low', severity: a.severity })}`, value: 1 }],
      });
    }
    const file = s.write('default_rules_test.yml', { rule_files: [rules], evaluation_interval: '30s', tests: [{ interval: '1m', input_series: input, promql_expr_test: promql }] });
    const r = promtool(['test', 'rules', file]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('SUCCESS');
  });

  it('test rules: fires with enough low samples, not with too few, resolves after recovery', () => {
    const rules = s.write('rules.yml', generateRules(config()));
    const g = { metric: 'groundedness', judge: 'llm', service: 'rag' };
    const lbl = (l: Record<string, string>) => `{${Object.entries(l).map(([k, v]) => `${k}="${v}"`).join(',')}}`;
    // service "rag": minutes 1–40 two samples/min at 0.5, then two/min at 1.0.
    // SQC 0.4 and RQC 0.9 throughout → THELMA: SQC low, RQC high, GR low → prompt.
    const rag = (metric: string, score: (i: number) => number) => [
      { series: `ragwatch_score_ratio_sum${lbl({ ...g, metric })}`, values: counterValues(90, (i) => 2 * score(i)) },
      { series: `ragwatch_score_ratio_count${lbl({ ...g, metric })}`, values: counterValues(90, () => 2) },
      { series: `ragwatch_score_samples_total${lbl({ ...g, metric })}`, values: counterValues(90, () => 2) },
    ];
    // service "quiet": one sample every 3 minutes at 0.1 → 10 per 30m < minSamples 20.
    const quiet = { ...g, service: 'quiet' };
    const input = [
      ...rag('groundedness', (i) => (i <= 40 ? 0.5 : 1)),
      ...rag('source_query_coverage', () => 0.4),
      ...rag('response_query_coverage', () => 0.9),
      { series: `ragwatch_score_ratio_sum${lbl(quiet)}`, values: counterValues(90, (i) => (i % 3 === 0 ? 0.1 : 0)) },
      { series: `ragwatch_score_ratio_count${lbl(quiet)}`, values: counterValues(90, (i) => (i % 3 === 0 ? 1 : 0)) },
      { series: `ragwatch_score_samples_total${lbl(quiet)}`, values: counterValues(90, (i) => (i % 3 === 0 ? 1 : 0)) },
    ];
    const alertname = alertName('groundedness');
    const firing = {
      exp_labels: { ...g, severity: 'page' },
      exp_annotations: {
        summary: 'groundedness 0.50 < 0.8 over 30m (n=60) for rag',
        description: 'The 30m weighted mean of groundedness (llm judge) for service rag is 0.500, below the threshold 0.8, over 60 judged samples (minimum 20).',
        value: '0.500',
        samples: '60',
        diagnosis:
          'likely component: prompt — the sources miss parts of the questions (SQC 0.40) and answers address the questions (RQC 0.90) and answers make claims the sources do not support (GR 0.50)',
        examples: 'https://ragwatch.example/examples?metric=groundedness&below=0.8&service=rag',
        runbook_url: 'https://runbooks.example/groundedness',
      },
    };
    const test = {
      rule_files: [rules],
      evaluation_interval: '30s',
      tests: [
        {
          interval: '1m',
          input_series: input,
          alert_rule_test: [
            // ≥ 20 samples from minute 10, then `for: 10m` → still pending at 15m.
            { eval_time: '15m', alertname, exp_alerts: [] },
            { eval_time: '35m', alertname, exp_alerts: [firing] },
            // the quiet service never fires (too few samples) even at a mean of 0.1.
            { eval_time: '40m', alertname, exp_alerts: [firing] },
            // mean ≥ 0.8 again from minute 58 (checked below); keep_firing_for 5m holds the alert until ~63m.
            { eval_time: '70m', alertname, exp_alerts: [] },
          ],
          promql_expr_test: [
            { expr: `${meanRecordName('30m')}{metric="groundedness",service="rag"}`, eval_time: '30m', exp_samples: [{ labels: `${meanRecordName('30m')}${lbl(g)}`, value: 0.5 }] },
            { expr: `${meanRecordName('30m')}{metric="groundedness",service="rag"} >= 0.8`, eval_time: '61m', exp_samples: [{ labels: `${meanRecordName('30m')}${lbl(g)}`, value: 0.85 }] },
            {
              expr: `ALERTS{alertname="${alertname}",alertstate="firing"}`,
              eval_time: '61m',
              exp_samples: [{ labels: `ALERTS${lbl({ alertname, alertstate: 'firing', ...g, severity: 'page' })}`, value: 1 }],
            },
            { expr: `ragwatch:score_samples:increase30m{metric="groundedness",service="quiet"} < 20`, eval_time: '60m', exp_samples: [{ labels: `ragwatch:score_samples:increase30m${lbl(quiet)}`, value: 10 }] },
          ],
        },
      ],
    };
    const file = s.write('rules_test.yml', JSON.parse(JSON.stringify(test)));
    const r = promtool(['test', 'rules', file]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('SUCCESS');
  });
});

/**
 * The slice alerts' Prometheus rules through a real `promtool test rules`: a canary release whose
 * answers turn bad pages with `dimension="release", slice="v2"` within the hour window; the healthy
 * release and an identical canary never do; a slice holding nearly all of the service's answers is
 * not tested (the change alert covers it).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { generateRules } from '../../src/roles/rules.ts';
import { sliceAlertName } from '../../src/slices/notice.ts';
import { haveBinaries, promtool, scratchDir } from '../helpers/prometheus.ts';
import { counterValues } from '../helpers/promtool-series.ts';

const config = loadConfig({ env: {}, overrides: { alerts: { metrics: { grounding_lexical: { threshold: 0.8, severity: 'page' } } } } });
const ALERT = sliceAlertName('grounding_lexical');

describe.skipIf(!haveBinaries('slice rules × promtool', 'promtool'))('slice rules × promtool', () => {
  const s = scratchDir('ragwatch-slice-rules-');
  afterAll(() => s.cleanup());

  it('page a broken canary by name, never the healthy release or an identical canary', () => {
    const rules = s.write('rules.yml', generateRules(config));
    const series = (slice: string, answers: (m: number) => number, flagged: (m: number) => number) => {
      const l = `{metric="grounding_lexical",judge="embedded",service="rag",dimension="release",slice="${slice}"}`;
      return [
        { series: `ragwatch_slice_answers_total${l}`, values: counterValues(150, answers) },
        { series: `ragwatch_slice_flagged_total${l}`, values: counterValues(150, flagged) },
      ];
    };
    // v1: 20 answers a minute, one flagged in 33; from minute 60 a canary takes 2 a minute: v2 all flagged, v3 like v1.
    const input = [
      ...series('v1', () => 20, (m) => (m % 33 === 0 ? 1 : 0) + (m % 3 === 0 ? 0.5 : 0)),
      ...series('v2', (m) => (m > 60 ? 2 : 0), (m) => (m > 60 ? 2 : 0)),
      ...series('v3', (m) => (m > 60 ? 2 : 0), (m) => (m > 60 && m % 17 === 0 ? 1 : 0)),
    ];
    const firing = (t: string, slices: string[]) => ({
      expr: `ALERTS{alertname="${ALERT}",alertstate="firing"}`,
      eval_time: t,
      exp_samples: slices.map((slice) => ({ labels: `ALERTS{alertname="${ALERT}",alertstate="firing",dimension="release",judge="embedded",kind="slice",metric="grounding_lexical",service="rag",severity="page",slice="${slice}"}`, value: 1 })),
    });
    const test = {
      rule_files: [rules],
      evaluation_interval: '30s',
      tests: [{ interval: '1m', input_series: input, promql_expr_test: [firing('60m', []), firing('70m', ['v2']), firing('140m', ['v2'])] }],
    };
    const r = promtool(['test', 'rules', s.write('slice_rules_test.yml', JSON.parse(JSON.stringify(test)))]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('SUCCESS');
  });
});

/**
 * The generated burn-rate rules through a real `promtool test rules`: the same page and ticket
 * scenarios as `slo.test.ts`, firing and silent at the same checks as the in-process monitor.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { generateRules } from '../../src/roles/rules.ts';
import { sloAlertName } from '../../src/slo/rules.ts';
import { haveBinaries, promtool, scratchDir } from '../helpers/prometheus.ts';
import { counterValues } from '../helpers/promtool-series.ts';
import { FAST_BURN, PER_MINUTE, STEADY_BURN, config, inProcess, type BurnScenario } from './burn-scenarios.ts';

describe.skipIf(!haveBinaries('slo rules × promtool', 'promtool'))('quality SLO rules × promtool', () => {
  const s = scratchDir('ragwatch-slo-rules-');
  afterAll(() => s.cleanup());

  /** The generated rules through promtool on the scenario's answers: the firing services of its severity at every check, as in process. */
  function promtoolAgrees(sc: BurnScenario): void {
    const expected = inProcess(sc).firings;
    // The scenario must mean something: it fires somewhere.
    expect([...expected.values()].flat().length).toBeGreaterThan(0);
    const input = ['burn', 'ok'].flatMap((service) => {
      const l = `metric="groundedness",judge="llm",service="${service}"`;
      return [
        { series: `ragwatch_score_ratio_bucket{${l},le="0.8"}`, values: counterValues(sc.minutes, (i) => sc.bad(i, service)) },
        { series: `ragwatch_score_ratio_count{${l}}`, values: counterValues(sc.minutes, () => PER_MINUTE) },
        { series: `ragwatch_score_samples_total{${l}}`, values: counterValues(sc.minutes, () => PER_MINUTE) },
      ];
    });
    const alertname = sloAlertName('groundedness');
    const promql = sc.checks.map((t) => ({
      expr: `ALERTS{alertname="${alertname}",alertstate="firing",severity="${sc.severity}"}`,
      eval_time: `${t}m`,
      exp_samples: expected.get(t)!.map((service) => ({ labels: `ALERTS{alertname="${alertname}",alertstate="firing",judge="llm",kind="burn_rate",metric="groundedness",service="${service}",severity="${sc.severity}"}`, value: 1 })),
    }));
    const rules = s.write(`rules-${sc.severity}.yml`, generateRules(config));
    const file = s.write(`slo_${sc.severity}_test.yml`, { rule_files: [rules], evaluation_interval: '1m', tests: [{ interval: '1m', input_series: input, promql_expr_test: promql }] });
    const r = promtool(['test', 'rules', file]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('SUCCESS');
  }

  it('page on a fast burn, stay silent at 2 % bad, and match the in-process monitor at every check', () => promtoolAgrees(FAST_BURN));

  it('ticket on a steady burn and match the in-process monitor at every check', () => promtoolAgrees(STEADY_BURN));
});

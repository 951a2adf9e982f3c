/**
 * The probe alert rules through a real `promtool test rules`: each alert fires for the suite whose
 * last run is below (or above) its own exported threshold, with the suite's severity, and not for a
 * healthy suite; the stale alert counts from the last completed run, or from when scheduling began.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { generateRules } from '../../src/roles/rules.ts';
import { PROBE_ALERTS } from '../../src/probes/alerts.ts';
import { haveBinaries, promtool, scratchDir } from '../helpers/prometheus.ts';

const lbl = (l: Record<string, string>) => `{${Object.entries(l).map(([k, v]) => `${k}="${v}"`).join(',')}}`;

describe('probe rules', () => {
  it('are part of every generated rule file, one per probe alert', () => {
    const group = generateRules(loadConfig({ env: {} })).groups.find((g) => g.name === 'ragwatch-probe-alerts');
    expect(group?.rules.map((r) => r.alert)).toEqual([...PROBE_ALERTS]);
  });
});

describe.skipIf(!haveBinaries('promtool probe rules tests', 'promtool'))('probe rules × promtool', () => {
  const s = scratchDir('ragwatch-probe-rules-');
  afterAll(() => s.cleanup());

  it('fire per suite against its own thresholds and severity; stale after 3 periods without a completed run', () => {
    const rules = s.write('rules.yml', generateRules(loadConfig({ env: {} })));
    const job = { job: 'ragwatch', instance: 'prober:9464' };
    const g = (name: string, suite: string, values: string, extra: Record<string, string> = {}) => ({ series: `${name}${lbl({ ...job, suite, ...extra })}`, values });
    const suiteSeries = (suite: string, severity: string, v: { acc: number; r: number; err: number; lastRun?: string; schedule: number }) => [
      g('ragwatch_probe_suite_info', suite, '1x30', { severity }),
      g('ragwatch_probe_min_accuracy_ratio', suite, '0.8x30'),
      g('ragwatch_probe_min_robustness_ratio', suite, '0.8x30'),
      g('ragwatch_probe_max_error_ratio', suite, '0.1x30'),
      g('ragwatch_probe_schedule_seconds', suite, `${v.schedule}x30`),
      g('ragwatch_probe_scheduled_since_timestamp_seconds', suite, '0x30'),
      g('ragwatch_probe_accuracy_ratio', suite, `${v.acc}x30`),
      g('ragwatch_probe_robustness_ratio', suite, `${v.r}x30`),
      g('ragwatch_probe_error_ratio', suite, `${v.err}x30`),
      ...(v.lastRun ? [g('ragwatch_probe_last_run_timestamp_seconds', suite, v.lastRun)] : []),
    ];
    const input = [
      // "acme": every ratio on the wrong side; its last run completed at t=60 s, schedule 5 min → stale after 16 min.
      ...suiteSeries('acme', 'page', { acc: 0.6, r: 0.7, err: 0.2, lastRun: '60x30', schedule: 300 }),
      // "fine": healthy and completing every minute.
      ...suiteSeries('fine', 'ticket', { acc: 0.9, r: 0.95, err: 0, lastRun: '0+60x30', schedule: 60 }),
    ];
    // "fresh": scheduled at t=0 and never completed, 1-minute schedule → stale after 3 minutes.
    input.push(g('ragwatch_probe_suite_info', 'fresh', '1x30', { severity: 'ticket' }), g('ragwatch_probe_schedule_seconds', 'fresh', '60x30'), g('ragwatch_probe_scheduled_since_timestamp_seconds', 'fresh', '0x30'));
    const firing = (at: string, alerts: Array<[string, string, string]>) => ({
      expr: 'ALERTS{alertstate="firing"}',
      eval_time: at,
      exp_samples: alerts.map(([alertname, suite, severity]) => ({ labels: `ALERTS${lbl({ alertname, alertstate: 'firing', severity, suite })}`, value: 1 })),
    });
    const low: Array<[string, string, string]> = [
      ['RagwatchProbeAccuracyLow', 'acme', 'page'],
      ['RagwatchProbeRobustnessLow', 'acme', 'page'],
      ['RagwatchProbeErrorsHigh', 'acme', 'page'],
    ];
    const test = {
      rule_files: [rules],
      evaluation_interval: '1m',
      tests: [
        {
          interval: '1m',
          input_series: input,
          promql_expr_test: [
            firing('2m', low),
            firing('5m', [...low, ['RagwatchProbeStale', 'fresh', 'ticket']]),
            firing('20m', [...low, ['RagwatchProbeStale', 'acme', 'page'], ['RagwatchProbeStale', 'fresh', 'ticket']]),
          ],
        },
      ],
    };
    const r = promtool(['test', 'rules', s.write('probe_rules_test.yml', test)]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('SUCCESS');
  });
});

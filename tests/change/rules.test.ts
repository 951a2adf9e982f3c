/**
 * The change alerts as Prometheus rules, through a real `promtool test rules`: the alert fires on a
 * drop with its severity and stays silent on a flat series, and the in-process monitor gives the same
 * firings on the same answers (one semantics, two evaluators).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ChangeMonitor } from '../../src/change/monitor.ts';
import { changeAlertName, changeRulesFromConfig } from '../../src/change/rules.ts';
import { loadConfig } from '../../src/config/load.ts';
import { generateRules } from '../../src/roles/rules.ts';
import { haveBinaries, promtool, scratchDir } from '../helpers/prometheus.ts';
import { record } from './simulate.ts';

const config = loadConfig({ env: {}, overrides: { alerts: { metrics: { groundedness: { threshold: 0.8, severity: 'page' }, answer_relevancy: { threshold: 0.2, severity: 'ticket' } } } } });
const PER_MINUTE = 20;
/** Flagged answers per minute of each service: `drop` goes from 1 in 20 (5 %) to 8 in 20 between minutes 121 and 160. */
const flaggedAt = (service: string, minute: number) => (service === 'drop' && minute > 120 && minute <= 160 ? 8 : 1);
const MINUTES = 200;
/** Evaluation times (minutes) compared: before, just after the start, during, and after the drop. */
const CHECKS = [100, 123, 140, 158, 185, 200];
const SERVICES = ['drop', 'flat'];

/** Cumulative counter values per minute from `perMinute(i)` (i ≥ 1), as promtool's explicit value list. */
function series(perMinute: (i: number) => number): string {
  const out: number[] = [0];
  for (let i = 1; i <= MINUTES; i++) out.push(out[i - 1]! + perMinute(i));
  return out.join(' ');
}

/** The in-process monitor fed the same answers, evaluated every minute; the firing services at each check. */
function inProcessFirings(): Map<number, string[]> {
  let now = 0;
  const monitor = new ChangeMonitor({ ...changeRulesFromConfig(config.alerts), now: () => now });
  const out = new Map<number, string[]>();
  for (let m = 1; m <= MINUTES; m++) {
    // Counter sample i is taken at minute i and holds the answers of minutes 1..i: the answers of minute i land just before it.
    for (const service of SERVICES) {
      for (let i = 0; i < PER_MINUTE; i++) {
        now = m * 60_000 - 30_000 + i;
        monitor.onRecord(record(i < flaggedAt(service, m) ? 0.5 : 1, service));
      }
    }
    now = m * 60_000;
    const firing = monitor.evaluate().map((s) => s.service);
    if (CHECKS.includes(m)) out.set(m, firing.sort());
  }
  return out;
}

describe('change rules', () => {
  it('are generated for page-severity metrics only, unless a metric says otherwise', () => {
    const names = (c: typeof config) => generateRules(c).groups.flatMap((g) => g.rules.map((r) => r.alert)).filter((a) => String(a).endsWith('Drop'));
    expect(names(config)).toEqual([changeAlertName('groundedness')]);
    const on = loadConfig({ env: {}, overrides: { alerts: { metrics: { groundedness: { threshold: 0.8, severity: 'page', change: false }, answer_relevancy: { threshold: 0.2, severity: 'ticket', change: true } } } } });
    expect(names(on)).toEqual(['RagwatchAnswerRelevancyDrop']);
  });

  const enabled = haveBinaries('change rules × promtool', 'promtool');
  const s = scratchDir('ragwatch-change-rules-');
  afterAll(() => s.cleanup());

  it.skipIf(!enabled)('fire on a drop with severity page, stay silent on a flat series, and match the in-process monitor at every check', () => {
    const expected = inProcessFirings();
    // What the in-process monitor says — and what it must say for the scenario to mean anything.
    expect(expected.get(100)).toEqual([]);
    expect(expected.get(123)).toEqual([]);
    expect(expected.get(140)).toEqual(['drop']);
    expect(expected.get(158)).toEqual(['drop']);
    expect(expected.get(185)).toEqual([]);
    const rules = s.write('rules.yml', generateRules(config));
    const input = SERVICES.flatMap((service) => {
      const l = `metric="groundedness",judge="llm",service="${service}"`;
      return [
        { series: `ragwatch_score_ratio_bucket{${l},le="0.8"}`, values: series((i) => flaggedAt(service, i)) },
        { series: `ragwatch_score_ratio_count{${l}}`, values: series(() => PER_MINUTE) },
        { series: `ragwatch_score_weight_squares_total{${l}}`, values: series(() => PER_MINUTE) },
        { series: `ragwatch_score_samples_total{${l}}`, values: series(() => PER_MINUTE) },
        { series: `ragwatch_score_ratio_sum{${l}}`, values: series((i) => PER_MINUTE - 0.5 * flaggedAt(service, i)) },
      ];
    });
    const alertname = changeAlertName('groundedness');
    const promql = CHECKS.map((t) => ({
      expr: `ALERTS{alertname="${alertname}",alertstate="firing"}`,
      eval_time: `${t}m`,
      exp_samples: expected.get(t)!.map((service) => ({ labels: `ALERTS{alertname="${alertname}",alertstate="firing",judge="llm",kind="change",metric="groundedness",service="${service}",severity="page"}`, value: 1 })),
    }));
    const file = s.write('change_test.yml', { rule_files: [rules], evaluation_interval: '1m', tests: [{ interval: '1m', input_series: input, promql_expr_test: promql }] });
    const r = promtool(['test', 'rules', file]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('SUCCESS');
  });
});

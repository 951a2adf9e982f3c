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
import { counterValues } from '../helpers/promtool-series.ts';
import { record } from './simulate.ts';

const config = loadConfig({ env: {}, overrides: { alerts: { metrics: { groundedness: { threshold: 0.8, severity: 'page' }, answer_relevancy: { threshold: 0.2, severity: 'ticket' } } } } });
const PER_MINUTE = 20;
const SERVICES = ['drop', 'flat'];

/** A scenario: flagged answers per minute of each service (of PER_MINUTE), its length, the minutes compared. */
interface Scenario {
  config: typeof config;
  tier: 'page' | 'ticket';
  flaggedAt: (service: string, minute: number) => number;
  minutes: number;
  checks: number[];
  /** A calibration: P(good) of a score (metrics `on: calibrated`). */
  pGood?: (score: number) => number;
}

/** The in-process monitor fed the same answers, evaluated every minute; the firing services of the tier at each check. */
function inProcessFirings(sc: Scenario): Map<number, string[]> {
  let now = 0;
  const pGood = sc.pGood;
  const monitor = new ChangeMonitor({ ...changeRulesFromConfig(sc.config.alerts), now: () => now, ...(pGood ? { probability: (_m: string, _j: string, score: number) => pGood(score) } : {}) });
  const out = new Map<number, string[]>();
  for (let m = 1; m <= sc.minutes; m++) {
    // Counter sample i is taken at minute i and holds the answers of minutes 1..i: the answers of minute i land just before it.
    for (const service of SERVICES) {
      for (let i = 0; i < PER_MINUTE; i++) {
        now = m * 60_000 - 30_000 + i;
        monitor.onRecord(record(i < sc.flaggedAt(service, m) ? 0.5 : 1, service));
      }
    }
    now = m * 60_000;
    const firing = monitor.evaluate().filter((x) => x.tier === sc.tier).map((x) => x.service);
    if (sc.checks.includes(m)) out.set(m, firing.sort());
  }
  return out;
}

/** Runs the generated rules of the scenario through promtool, expecting the in-process firings at every check. */
function promtoolAgrees(sc: Scenario, expected: Map<number, string[]>, write: (name: string, content: unknown) => string): void {
  const rules = write(`rules-${sc.tier}.yml`, generateRules(sc.config));
  const input = SERVICES.flatMap((service) => {
    const l = `metric="groundedness",judge="llm",service="${service}"`;
    return [
      { series: `ragwatch_score_ratio_bucket{${l},le="0.8"}`, values: counterValues(sc.minutes, (i) => sc.flaggedAt(service, i)) },
      { series: `ragwatch_score_ratio_count{${l}}`, values: counterValues(sc.minutes, () => PER_MINUTE) },
      { series: `ragwatch_score_weight_squares_total{${l}}`, values: counterValues(sc.minutes, () => PER_MINUTE) },
      { series: `ragwatch_score_samples_total{${l}}`, values: counterValues(sc.minutes, () => PER_MINUTE) },
      { series: `ragwatch_score_ratio_sum{${l}}`, values: counterValues(sc.minutes, (i) => PER_MINUTE - 0.5 * sc.flaggedAt(service, i)) },
      // What the calibration consumer exports: Σw and Σw·P(good) of the calibrated scores.
      ...(sc.pGood
        ? [
            { series: `ragwatch_score_calibrated_ratio_count{${l}}`, values: counterValues(sc.minutes, () => PER_MINUTE) },
            { series: `ragwatch_score_calibrated_ratio_sum{${l}}`, values: counterValues(sc.minutes, (i) => sc.flaggedAt(service, i) * sc.pGood!(0.5) + (PER_MINUTE - sc.flaggedAt(service, i)) * sc.pGood!(1)) },
          ]
        : []),
    ];
  });
  const alertname = changeAlertName('groundedness', sc.tier);
  const promql = sc.checks.map((t) => ({
    expr: `ALERTS{alertname="${alertname}",alertstate="firing"}`,
    eval_time: `${t}m`,
    exp_samples: expected.get(t)!.map((service) => ({ labels: `ALERTS{alertname="${alertname}",alertstate="firing",judge="llm",kind="change",metric="groundedness",service="${service}",severity="${sc.tier}"}`, value: 1 })),
  }));
  const file = write(`change_${sc.tier}_test.yml`, { rule_files: [rules], evaluation_interval: '1m', tests: [{ interval: '1m', input_series: input, promql_expr_test: promql }] });
  const r = promtool(['test', 'rules', file]);
  expect(r.status, r.stdout + r.stderr).toBe(0);
  expect(r.stdout).toContain('SUCCESS');
}

describe('change rules × promtool', () => {
  const enabled = haveBinaries('change rules × promtool', 'promtool');
  const s = scratchDir('ragwatch-change-rules-');
  afterAll(() => s.cleanup());

  it.skipIf(!enabled)('fire on a drop with severity page, stay silent on a flat series, and match the in-process monitor at every check', () => {
    // Service "drop": from 1 in 20 (5 %) to 8 in 20 between minutes 121 and 160.
    const sc: Scenario = { config, tier: 'page', flaggedAt: (service, m) => (service === 'drop' && m > 120 && m <= 160 ? 8 : 1), minutes: 200, checks: [100, 123, 140, 158, 185, 200] };
    const expected = inProcessFirings(sc);
    // What the in-process monitor says — and what it must say for the scenario to mean anything.
    expect(expected.get(100)).toEqual([]);
    expect(expected.get(123)).toEqual([]);
    expect(expected.get(140)).toEqual(['drop']);
    expect(expected.get(158)).toEqual(['drop']);
    expect(expected.get(185)).toEqual([]);
    promtoolAgrees(sc, expected, s.write);
  });

  it.skipIf(!enabled)('the ticket tier fires with severity ticket on a lasting rise, and matches the in-process monitor (short windows configured for the test)', () => {
    const ticketOnly = loadConfig({ env: {}, overrides: { alerts: { metrics: { groundedness: { threshold: 0.8, severity: 'page' } }, change: { page: { enabled: false }, ticket: { window: '1h', shortWindow: '20m', baseline: '6h' } } } } });
    // Service "drop": 5 % for 7 hours, then 15 % (1.5× and +3 points are material for the ticket tier).
    const sc: Scenario = { config: ticketOnly, tier: 'ticket', flaggedAt: (service, m) => (service === 'drop' && m > 420 ? 3 : 1), minutes: 540, checks: [400, 425, 480, 540] };
    const expected = inProcessFirings(sc);
    expect(expected.get(400)).toEqual([]);
    expect(expected.get(425)).toEqual([]);
    expect(expected.get(480)).toEqual(['drop']);
    expect(expected.get(540)).toEqual(['drop']);
    promtoolAgrees(sc, expected, s.write);
  });

  it.skipIf(!enabled)('on: calibrated counts each answer with its calibrated P(bad), in the rules as in process', () => {
    const calibrated = loadConfig({ env: {}, overrides: { alerts: { metrics: { groundedness: { threshold: 0.5, severity: 'page', on: 'calibrated' } }, change: { ticket: { enabled: false } } } } });
    // The calibration: P(good) 0.2 for a 0.5 score, 0.95 for a perfect one. Healthy: 1 in 20 low (8.75 % expected bad); then 8 in 20 (35 %).
    const sc: Scenario = { config: calibrated, tier: 'page', pGood: (score) => (score <= 0.5 ? 0.2 : 0.95), flaggedAt: (service, m) => (service === 'drop' && m > 120 && m <= 160 ? 8 : 1), minutes: 200, checks: [100, 123, 140, 158, 185, 200] };
    const expected = inProcessFirings(sc);
    expect(expected.get(100)).toEqual([]);
    expect(expected.get(140)).toEqual(['drop']);
    expect(expected.get(185)).toEqual([]);
    promtoolAgrees(sc, expected, s.write);
    // Without a calibration the calibrated share cannot be computed: nothing is counted, nothing fires.
    const { pGood: _calibration, ...raw } = sc;
    const uncalibrated = inProcessFirings(raw);
    expect([...uncalibrated.values()].flat()).toEqual([]);
  });
});

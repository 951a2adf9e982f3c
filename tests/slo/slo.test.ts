/**
 * Quality SLOs: the workbook's known answers in process (detection time W·b/B, error budget left), and
 * the generated burn-rate rules through a real `promtool test rules`, firing and silent, with the same
 * firings as the in-process monitor at every check.
 */
import { Registry } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { generateRules } from '../../src/roles/rules.ts';
import { SloMonitor } from '../../src/slo/monitor.ts';
import { sloAlertName, sloRulesFromConfig } from '../../src/slo/rules.ts';
import { record } from '../change/simulate.ts';
import { haveBinaries, promtool, scratchDir } from '../helpers/prometheus.ts';

const config = loadConfig({ env: {}, overrides: { alerts: { metrics: { groundedness: { threshold: 0.8, severity: 'page', slo: { objective: 0.95 } } } } } });
const T0 = Date.UTC(2026, 0, 1);

/** Drives a monitor minute by minute: `perMinute` answers, `bad(m, service)` of them at or below the cut. */
function run(minutes: number, perMinute: number, bad: (m: number, service: string) => number, services: string[], check: (m: number, monitor: SloMonitor) => void, registry?: Registry): SloMonitor {
  let now = T0;
  const monitor = new SloMonitor({ rules: sloRulesFromConfig(config.alerts), now: () => now, keepFiringForMs: 300_000, ...(registry ? { registry } : {}) });
  for (let m = 1; m <= minutes; m++) {
    for (const service of services) for (let i = 0; i < perMinute; i++) {
      now = T0 + m * 60_000 - 30_000 + i;
      monitor.onRecord(record(i < bad(m, service) ? 0.5 : 1, service));
    }
    now = T0 + m * 60_000;
    monitor.evaluate();
    check(m, monitor);
  }
  return monitor;
}

describe('quality SLO in process', () => {
  it('does not page on the first answers of a cold start: a pair needs minSamples answers in its long window', () => {
    const pages: number[] = [];
    // The first two answers are bad, the rest good: a 100 % bad share over 1 h and 5 m, from 2 answers.
    run(30, 1, (m) => (m <= 2 ? 1 : 0), ['rag'], (m, monitor) => {
      if (monitor.active().some((a) => a.severity === 'page')) pages.push(m);
    });
    expect(pages).toEqual([]);
  });

  it('100 % bad answers at objective 0.95 (burn rate 20) page after about 43 minutes: 1 h × 14.4 / 20 (SRE workbook)', () => {
    // Six good hours first, so the 6 h pair (6× over 6h and 30m) needs its full 108 minutes.
    let firstPage: number | undefined;
    run(480, 10, (m) => (m > 360 ? 10 : 0), ['rag'], (m, monitor) => {
      if (firstPage === undefined && monitor.active().some((a) => a.severity === 'page')) firstPage = m;
    });
    expect(firstPage! - 360).toBeGreaterThanOrEqual(43);
    expect(firstPage! - 360).toBeLessThanOrEqual(45);
  });

  it('reports the error budget left: 2 % bad for a day at objective 0.95 leaves 60 %, and no page or ticket', () => {
    const registry = new Registry();
    const monitor = run(24 * 60, 50, (m) => (m % 1 === 0 ? 1 : 0), ['rag'], () => undefined, registry);
    expect(monitor.active()).toEqual([]);
    return registry.getSingleMetric('ragwatch_slo_error_budget_remaining_ratio')!.get().then((g) => {
      expect(g.values).toHaveLength(1);
      expect(g.values[0]!.value).toBeCloseTo(0.6, 6);
    });
  });
});

describe('quality SLO rules', () => {
  const enabled = haveBinaries('slo rules × promtool', 'promtool');
  const s = scratchDir('ragwatch-slo-rules-');
  afterAll(() => s.cleanup());
  // Service "burn": healthy (2 % bad) for 6 h, then all bad for 60 min, then healthy for 2 h; "ok" stays at 2 %.
  const PER_MINUTE = 50;
  const MINUTES = 540;
  const bad = (m: number, service: string) => (service === 'burn' && m > 360 && m <= 420 ? PER_MINUTE : 1);
  const CHECKS = [360, 390, 405, 420, 430, 480, 540];

  it('are generated only for metrics with an slo, a page and a ticket rule each', () => {
    const alerts = generateRules(config).groups.find((g) => g.name === 'ragwatch-slo-alerts')!.rules;
    expect(alerts.map((r) => [r.alert, (r.labels as Record<string, string>).severity])).toEqual([[sloAlertName('groundedness'), 'page'], [sloAlertName('groundedness'), 'ticket']]);
    expect(generateRules(loadConfig({ env: {} })).groups.map((g) => g.name)).not.toContain('ragwatch-slo-alerts');
  });

  it.skipIf(!enabled)('page on a fast burn, stay silent at 2 % bad, and match the in-process monitor at every check', () => {
    const expected = new Map<number, string[]>();
    run(MINUTES, PER_MINUTE, bad, ['burn', 'ok'], (m, monitor) => {
      if (CHECKS.includes(m)) expected.set(m, monitor.active().filter((a) => a.severity === 'page').map((a) => a.service).sort());
    });
    // 30 min in: the 1 h bad share is 0.51 < 14.4 × 0.05; 45 min in: 0.76, and the 5 m share is 1.
    expect(expected.get(390)).toEqual([]);
    expect(expected.get(405)).toEqual(['burn']);
    expect(expected.get(420)).toEqual(['burn']);
    // 10 min after it ended the 5 m window is healthy again: the short window resets the page.
    expect(expected.get(430)).toEqual([]);
    expect(expected.get(540)).toEqual([]);
    promtoolAgrees('page', MINUTES, CHECKS, bad, expected);
  });

  it.skipIf(!enabled)('ticket on a steady burn (10 % bad at objective 0.95: 2×), never page it, and match the in-process monitor', () => {
    // Service "burn": 2 % bad for 3 h, then 10 %: the 3 d and 6 h shares cross 5 % about 108 minutes later.
    const minutes = 480;
    const checks = [200, 330, 480];
    const steady = (m: number, service: string) => (service === 'burn' && m > 180 ? 5 : 1);
    const tickets = new Map<number, string[]>();
    const pages: string[] = [];
    run(minutes, PER_MINUTE, steady, ['burn', 'ok'], (m, monitor) => {
      pages.push(...monitor.active().filter((a) => a.severity === 'page').map((a) => a.service));
      if (checks.includes(m)) tickets.set(m, monitor.active().filter((a) => a.severity === 'ticket').map((a) => a.service).sort());
    });
    expect(pages).toEqual([]);
    expect(tickets.get(200)).toEqual([]);
    expect(tickets.get(330)).toEqual(['burn']);
    expect(tickets.get(480)).toEqual(['burn']);
    promtoolAgrees('ticket', minutes, checks, steady, tickets);
  });

  /** The generated rules through promtool on the same answers: the firing services of `severity` at every check. */
  function promtoolAgrees(severity: 'page' | 'ticket', minutes: number, checks: number[], badAt: (m: number, service: string) => number, expected: Map<number, string[]>): void {
    const series = (perMinute: (i: number) => number) => {
      const out = [0];
      for (let i = 1; i <= minutes; i++) out.push(out[i - 1]! + perMinute(i));
      return out.join(' ');
    };
    const input = ['burn', 'ok'].flatMap((service) => {
      const l = `metric="groundedness",judge="llm",service="${service}"`;
      return [
        { series: `ragwatch_score_ratio_bucket{${l},le="0.8"}`, values: series((i) => badAt(i, service)) },
        { series: `ragwatch_score_ratio_count{${l}}`, values: series(() => PER_MINUTE) },
        { series: `ragwatch_score_samples_total{${l}}`, values: series(() => PER_MINUTE) },
      ];
    });
    const alertname = sloAlertName('groundedness');
    const promql = checks.map((t) => ({
      expr: `ALERTS{alertname="${alertname}",alertstate="firing",severity="${severity}"}`,
      eval_time: `${t}m`,
      exp_samples: expected.get(t)!.map((service) => ({ labels: `ALERTS{alertname="${alertname}",alertstate="firing",judge="llm",kind="burn_rate",metric="groundedness",service="${service}",severity="${severity}"}`, value: 1 })),
    }));
    const rules = s.write(`rules-${severity}.yml`, generateRules(config));
    const file = s.write(`slo_${severity}_test.yml`, { rule_files: [rules], evaluation_interval: '1m', tests: [{ interval: '1m', input_series: input, promql_expr_test: promql }] });
    const r = promtool(['test', 'rules', file]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('SUCCESS');
  }
});

/**
 * Quality SLOs in process: the workbook's known answers (detection time W·b/B, error budget left), the
 * page and ticket scenarios, and which rules are generated. The same scenarios through a real
 * `promtool test rules`: `slo.integration.test.ts`.
 */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { generateRules } from '../../src/roles/rules.ts';
import { sloAlertName } from '../../src/slo/rules.ts';
import { FAST_BURN, STEADY_BURN, config, inProcess, run } from './burn-scenarios.ts';

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
  it('are generated only for metrics with an slo, a page and a ticket rule each', () => {
    const alerts = generateRules(config).groups.find((g) => g.name === 'ragwatch-slo-alerts')!.rules;
    expect(alerts.map((r) => [r.alert, (r.labels as Record<string, string>).severity])).toEqual([[sloAlertName('groundedness'), 'page'], [sloAlertName('groundedness'), 'ticket']]);
    expect(generateRules(loadConfig({ env: {} })).groups.map((g) => g.name)).not.toContain('ragwatch-slo-alerts');
  });

  it('page on a fast burn and stay silent at 2 % bad (the scenario promtool must agree with)', () => {
    const { firings } = inProcess(FAST_BURN);
    // 30 min in: the 1 h bad share is 0.51 < 14.4 × 0.05; 45 min in: 0.76, and the 5 m share is 1.
    expect(firings.get(390)).toEqual([]);
    expect(firings.get(405)).toEqual(['burn']);
    expect(firings.get(420)).toEqual(['burn']);
    // 10 min after it ended the 5 m window is healthy again: the short window resets the page.
    expect(firings.get(430)).toEqual([]);
    expect(firings.get(540)).toEqual([]);
  });

  it('ticket on a steady burn (10 % bad at objective 0.95: 2×) and never page it', () => {
    const { firings, pages } = inProcess(STEADY_BURN);
    expect(pages).toEqual([]);
    expect(firings.get(200)).toEqual([]);
    expect(firings.get(330)).toEqual(['burn']);
    expect(firings.get(480)).toEqual(['burn']);
  });
});

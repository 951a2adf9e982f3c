/**
 * The quality-SLO scenarios the in-process tests (`slo.test.ts`) and the promtool tests
 * (`slo.integration.test.ts`) share: one configuration, a minute-by-minute driver, and the page and
 * ticket scenarios with the in-process monitor's firings at each check.
 */
import type { Registry } from 'prom-client';
import { loadConfig } from '../../src/config/load.ts';
import { SloMonitor } from '../../src/slo/monitor.ts';
import { sloRulesFromConfig } from '../../src/slo/rules.ts';
import { record } from '../change/simulate.ts';

/** groundedness with a 95 % objective. */
export const config = loadConfig({ env: {}, overrides: { alerts: { metrics: { groundedness: { threshold: 0.8, severity: 'page', slo: { objective: 0.95 } } } } } });
const T0 = Date.UTC(2026, 0, 1);

/** Drives a monitor minute by minute: `perMinute` answers, `bad(m, service)` of them at or below the cut. */
export function run(minutes: number, perMinute: number, bad: (m: number, service: string) => number, services: string[], check: (m: number, monitor: SloMonitor) => void, registry?: Registry): SloMonitor {
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

/** Answers per minute and service in the scenarios. */
export const PER_MINUTE = 50;

/** A scenario: its length, the minutes compared, bad answers per minute and service; `firings`: the in-process monitor's services of `severity` at each check. */
export interface BurnScenario {
  severity: 'page' | 'ticket';
  minutes: number;
  checks: number[];
  bad: (m: number, service: string) => number;
}

/** Service "burn": healthy (2 % bad) for 6 h, then all bad for 60 min, then healthy for 2 h; "ok" stays at 2 %. */
export const FAST_BURN: BurnScenario = { severity: 'page', minutes: 540, checks: [360, 390, 405, 420, 430, 480, 540], bad: (m, service) => (service === 'burn' && m > 360 && m <= 420 ? PER_MINUTE : 1) };

/** Service "burn": 2 % bad for 3 h, then 10 % (2× the budget): the 3 d and 6 h shares cross 5 % about 108 minutes later. */
export const STEADY_BURN: BurnScenario = { severity: 'ticket', minutes: 480, checks: [200, 330, 480], bad: (m, service) => (service === 'burn' && m > 180 ? 5 : 1) };

/** The in-process monitor on a scenario: firing services of its severity at each check, and every page seen. */
export function inProcess(sc: BurnScenario): { firings: Map<number, string[]>; pages: string[] } {
  const firings = new Map<number, string[]>();
  const pages: string[] = [];
  run(sc.minutes, PER_MINUTE, sc.bad, ['burn', 'ok'], (m, monitor) => {
    pages.push(...monitor.active().filter((a) => a.severity === 'page').map((a) => a.service));
    if (sc.checks.includes(m)) firings.set(m, monitor.active().filter((a) => a.severity === sc.severity).map((a) => a.service).sort());
  });
  return { firings, pages };
}

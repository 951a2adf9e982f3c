/**
 * Seeded simulations of a judged stream for the change alerts: answers arrive as a Poisson process at
 * `ratePerS`, each flagged (score 0.5, below the 0.8 cut) with probability `badShare(minute)`, and the
 * monitor is evaluated once a minute on a simulated clock.
 */
import { ChangeMonitor } from '../../src/change/monitor.ts';
import { changeRulesFromConfig } from '../../src/change/rules.ts';
import { loadConfig } from '../../src/config/load.ts';
import type { ScoreRecord } from '../../src/triplet.ts';
import { rng } from '../helpers/rng.ts';

/** The default change settings, with only groundedness (cut 0.8) alerting. */
export function defaultChange() {
  const config = loadConfig({ env: {}, overrides: { alerts: { metrics: { groundedness: { threshold: 0.8, severity: 'page' } } } } });
  return changeRulesFromConfig(config.alerts);
}

/** A score record of one answer (at `timestampMs`, default the epoch). */
export function record(score: number, service = 'rag', weight = 1, timestampMs = 0): ScoreRecord {
  return { tripletId: 't', traceId: 'a'.repeat(32), service, stratum: 'all', weight, timestamp: new Date(timestampMs).toISOString(), judge: { kind: 'llm', model: 'm' }, scores: { groundedness: score }, skipped: {}, details: { claims: [], subQuestions: [], sources: [], redundantSentences: [] }, diagnosis: [], usage: { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 } };
}

function poisson(random: () => number, lambda: number): number {
  const l = Math.exp(-lambda);
  let k = 0;
  for (let p = random(); p > l; p *= random()) k++;
  return k;
}

export interface SimResult {
  /** Minutes (from 0) at which a page (a change alert of the page tier) started firing. */
  firings: number[];
  /** Minutes at which a ticket (the drift tier) started firing. */
  tickets: number[];
  /** Minutes at which the series' baseline became ready. */
  baselineReadyAt: number | undefined;
  monitor: ChangeMonitor;
  /** The simulated clock at the end. */
  endMs: number;
}

/** Where a simulation starts. */
export const SIM_START_MS = Date.UTC(2026, 0, 1);

/**
 * Runs `minutes` of traffic through a monitor (default: the default settings) on a simulated clock
 * starting at `startMs`; `badShare(m)` is the share of flagged answers in minute m.
 */
export function simulate(seed: number, minutes: number, ratePerS: number, badShare: (minute: number) => number, options: { monitor?: (now: () => number) => ChangeMonitor; startMs?: number } = {}): SimResult {
  const random = rng(seed);
  let nowMs = options.startMs ?? SIM_START_MS;
  const clock = () => nowMs;
  const m = options.monitor?.(clock) ?? new ChangeMonitor({ ...defaultChange(), now: clock });
  const firings: number[] = [];
  const tickets: number[] = [];
  let baselineReadyAt: number | undefined;
  let firing = false;
  let ticketing = false;
  const start = nowMs;
  for (let minute = 0; minute < minutes; minute++) {
    const n = poisson(random, ratePerS * 60);
    const p = badShare(minute);
    for (let i = 0; i < n; i++) {
      nowMs = start + minute * 60_000 + Math.floor(((i + 0.5) / n) * 60_000);
      m.onRecord(record(random() < p ? 0.5 : 1));
    }
    nowMs = start + (minute + 1) * 60_000 - 1;
    const now = m.evaluate();
    const fired = now.some((x) => x.tier === 'page');
    const ticket = now.some((x) => x.tier === 'ticket');
    if (fired && !firing) firings.push(minute);
    if (ticket && !ticketing) tickets.push(minute);
    firing = fired;
    ticketing = ticket;
    if (baselineReadyAt === undefined && m.status().some((s) => s.state !== 'no_baseline')) baselineReadyAt = minute;
  }
  return { firings, tickets, baselineReadyAt, monitor: m, endMs: nowMs };
}

/** Score records of `minutes` of traffic with their timestamps: flagged answers score `badScore`, the rest 1. */
export function scoreRecords(seed: number, minutes: number, ratePerS: number, badShare: (minute: number) => number, badScore = 0.5): ScoreRecord[] {
  const random = rng(seed);
  const out: ScoreRecord[] = [];
  for (let minute = 0; minute < minutes; minute++) {
    const n = poisson(random, ratePerS * 60);
    for (let i = 0; i < n; i++) out.push(record(random() < badShare(minute) ? badScore : 1, 'rag', 1, SIM_START_MS + minute * 60_000 + Math.floor(((i + 0.5) / n) * 60_000)));
  }
  return out;
}

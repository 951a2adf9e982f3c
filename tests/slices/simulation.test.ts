/**
 * Issue 37's figures on seeded streams built from the embedded judge's real scores (HaluEval dev, see
 * `tests/helpers/real-scores.ts`), at 0.2 judged answers/s over 8 routes and 2 releases, evaluated every
 * 15 s: a 5 % canary whose every answer is hallucinated is paged naming the release in ≤ 30 min (p95);
 * a 10 % canary with half its answers hallucinated is paged in every seed (its p95 is not 30 min: see
 * docs/alerts.md for why no test on these counts can be, within the budget); and the service-wide 5 % → 25 % jump is paged by the change alert in ≤ 20 min (p95).
 */
import { describe, expect, it } from 'vitest';
import { ChangeMonitor } from '../../src/change/monitor.ts';
import { changeRulesFromConfig } from '../../src/change/rules.ts';
import { realStream } from '../helpers/real-scores.ts';
import { HEALTHY, START_MS, canaryTraffic, firstPage, replaySlices, sliceConfig, stream } from './simulate.ts';

const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.ceil(0.95 * xs.length) - 1]!;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.ceil(0.5 * xs.length) - 1]!;

/** First-page delays (minutes after the canary starts at 6 h) naming release v2 over `seeds` seeds; Infinity = not within 4 h. */
function canaryDelays(seeds: number, share: number, bad: number): { delays: number[]; early: number } {
  const delays: number[] = [];
  let early = 0;
  for (let seed = 1; seed <= seeds; seed++) {
    const { pages } = replaySlices(stream(seed, 10 * 60, canaryTraffic(360, share, bad)));
    early += pages.filter((p) => p.minute < 360).length;
    delays.push(firstPage(pages, 360, 'release', 'v2') ?? Infinity);
  }
  return { delays, early };
}

describe('slice alerts on real judge scores (0.2 answers/s, 8 routes, 2 releases)', () => {
  it('a 5 % canary whose every answer is hallucinated is paged naming release v2 in ≤ 30 min (p95 of 40 seeds); nothing pages before it', () => {
    const { delays, early } = canaryDelays(40, 0.05, 1);
    console.info(`slices: 5 % canary, all hallucinated: median ${median(delays)} min, p95 ${p95(delays)} min`);
    expect(early).toBe(0);
    expect(p95(delays)).toBeLessThanOrEqual(30);
  }, 120_000);

  it('a 10 % canary with half its answers hallucinated is paged in every seed within 2 h (median ≤ 40 min)', () => {
    const { delays } = canaryDelays(20, 0.1, 0.5);
    console.info(`slices: 10 % canary, half hallucinated: median ${median(delays)} min, p95 ${p95(delays)} min`);
    expect(Math.max(...delays)).toBeLessThanOrEqual(120);
    expect(median(delays)).toBeLessThanOrEqual(40);
  }, 120_000);
});

describe('the service-wide change alert on real judge scores', () => {
  it('pages a 5 % → 25 % jump at 0.2 answers/s in ≤ 20 min (p95 of 30 seeds)', () => {
    const config = sliceConfig();
    const delays: number[] = [];
    for (let seed = 1; seed <= 30; seed++) {
      let now = START_MS;
      const monitor = new ChangeMonitor({ ...changeRulesFromConfig(config.alerts), now: () => now });
      const at = START_MS + 24 * 3_600_000;
      let next = START_MS + 15_000;
      let first: number | undefined;
      for (const { ms, record } of realStream(seed, START_MS, 24 * 60 + 120, { ratePerS: 0.2, release: () => 'v1', hallucinated: (_r, t) => (t >= 24 * 3_600_000 ? 0.25 : HEALTHY) })) {
        for (; next <= ms && first === undefined; next += 15_000) {
          now = next;
          if (now >= at && monitor.evaluate().some((s) => s.tier === 'page')) first = (now - at) / 60_000;
        }
        now = ms;
        monitor.onRecord(record);
      }
      delays.push(first ?? Infinity);
    }
    console.info(`change: 5 % → 25 %: median ${median(delays)} min, p95 ${p95(delays)} min`);
    expect(p95(delays)).toBeLessThanOrEqual(20);
  }, 120_000);
});

/**
 * The false-page budget on the embedded judge's real scores: 30 simulated days at 0.2 judged answers/s
 * over 8 routes, with an identical 10 % canary, every slice monitored and evaluated every 15 s — no page;
 * and 60 starts of an identical canary (a new release has no history: the riskiest minutes) — no page.
 */
import { expect, it } from 'vitest';
import { HEALTHY, ROUTES, canaryTraffic, replaySlices, stream } from './simulate.ts';

it('an identical 10 % canary pages nothing in 30 days, with every slice monitored', () => {
  const { pages } = replaySlices(stream(77, 30 * 24 * 60, { ratePerS: 0.2, routes: ROUTES, release: (u) => (u < 0.1 ? 'v2' : 'v1'), hallucinated: () => HEALTHY }));
  expect(pages).toEqual([]);
}, 120_000);

it('identical canaries starting after 6 healthy hours (5, 10 and 20 % of the traffic, 20 starts each) page nothing', () => {
  const pages = [];
  for (const share of [0.05, 0.1, 0.2]) for (let seed = 1; seed <= 20; seed++) pages.push(...replaySlices(stream(500 + seed, 10 * 60, canaryTraffic(360, share, HEALTHY))).pages);
  expect(pages).toEqual([]);
}, 120_000);

/**
 * The false-page budget on the embedded judge's real scores: 30 simulated days at 0.2 judged answers/s
 * over 8 routes, with an identical 10 % canary, every slice monitored and evaluated every 15 s — no page.
 */
import { expect, it } from 'vitest';
import { HEALTHY, ROUTES, replaySlices, stream } from './simulate.ts';

it('an identical 10 % canary pages nothing in 30 days, with every slice monitored', () => {
  const { pages } = replaySlices(stream(77, 30 * 24 * 60, { ratePerS: 0.2, routes: ROUTES, release: (u) => (u < 0.1 ? 'v2' : 'v1'), hallucinated: () => HEALTHY }));
  expect(pages).toEqual([]);
}, 120_000);

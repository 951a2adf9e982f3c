/**
 * The change alerts' defaults against simulations with known parameters (seeded, DESIGN §17): few
 * false pages on healthy traffic, a real drop paged within minutes, a baseline from two hours.
 */
import { describe, expect, it } from 'vitest';
import { simulate } from './simulate.ts';

describe('change alerts on simulated traffic (defaults)', () => {
  it('30 days of healthy traffic (5 % flagged, 0.2 judged answers/s) give at most 1 false page', () => {
    const { firings, tickets } = simulate(7, 30 * 24 * 60, 0.2, () => 0.05);
    expect(firings.length).toBeLessThanOrEqual(1);
    expect(tickets.length).toBeLessThanOrEqual(1);
  }, 120_000);

  it('a slow drift (5 % → 15 % flagged over two days) opens a ticket within 6 hours of crossing 10 %, and pages nobody', () => {
    const week = 7 * 24 * 60;
    const day = 24 * 60;
    const crossing = week + day;
    for (const seed of [21, 22, 23]) {
      const { firings, tickets } = simulate(seed, week + 2 * day, 0.2, (m) => (m < week ? 0.05 : 0.05 + (0.1 * (m - week)) / (2 * day)));
      const ticket = tickets.find((t) => t >= week);
      expect(tickets.filter((t) => t < week), `seed ${seed}: a ticket before the drift`).toEqual([]);
      expect(ticket, `seed ${seed}: no ticket`).toBeDefined();
      expect(ticket! - crossing, `seed ${seed}`).toBeLessThanOrEqual(6 * 60);
      expect(firings, `seed ${seed}: a page for a drift`).toEqual([]);
    }
  }, 120_000);

  it('pages a shift from 5 % to 25 % flagged within 20 minutes in ≥ 95 % of seeded runs (0.2/s)', () => {
    const warmup = 3 * 60;
    const delays: number[] = [];
    let early = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const { firings } = simulate(seed, warmup + 60, 0.2, (m) => (m < warmup ? 0.05 : 0.25));
      if (firings.some((f) => f < warmup)) early++;
      const first = firings.find((f) => f >= warmup);
      delays.push(first === undefined ? Infinity : first - warmup + 1);
    }
    const within = delays.filter((d) => d <= 20).length;
    expect(early).toBe(0);
    expect(within / delays.length).toBeGreaterThanOrEqual(0.95);
    // And not instantly: the long window needs minutes of evidence (a one-minute blip is not a page).
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(3);
  }, 60_000);

  it('accepts a baseline from 2 hours at 0.2/s, and says "no baseline yet" before', () => {
    const { baselineReadyAt, firings } = simulate(3, 3 * 60, 0.2, () => 0.05);
    expect(baselineReadyAt).toBeGreaterThan(60);
    expect(baselineReadyAt).toBeLessThanOrEqual(120);
    expect(firings).toEqual([]);
  });

  it('does not page without a baseline, however bad the first hour is', () => {
    const { firings } = simulate(5, 60, 0.2, () => 0.6);
    expect(firings).toEqual([]);
  });
});

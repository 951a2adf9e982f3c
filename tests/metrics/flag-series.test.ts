/** Per-minute snapshots of flagged counts: window sums, an idle series, the ring bound, save and restore. */
import { describe, expect, it } from 'vitest';
import { FlagSeries } from '../../src/metrics/flag-series.ts';

const T0 = Date.UTC(2026, 0, 1);
const min = (m: number) => T0 + m * 60_000;

describe('FlagSeries', () => {
  it('sums any span of minutes from two snapshots, the current minute included', () => {
    const s = new FlagSeries(60 * 60_000, T0);
    for (let m = 0; m < 30; m++) for (let i = 0; i < 2; i++) s.add(min(m) + i * 1000, 1, m >= 20 && i === 0);
    // Minutes 0..29 hold 60 answers, 10 of them flagged (one in each of minutes 20..29).
    expect(s.counts(0 + T0 / 60_000, 30 + T0 / 60_000)).toEqual({ weight: 60, flagged: 10, weightSquares: 60, samples: 60 });
    expect(s.counts(25 + T0 / 60_000, 31 + T0 / 60_000)).toEqual({ weight: 10, flagged: 5, weightSquares: 10, samples: 10 });
    expect(s.counts(10 + T0 / 60_000, 20 + T0 / 60_000)).toMatchObject({ weight: 20, flagged: 0 });
  });

  it('keeps squared weights for the effective sample size', () => {
    const s = new FlagSeries(60_000, T0);
    s.add(T0, 3, true);
    s.add(T0 + 1, 1, false);
    expect(s.counts(T0 / 60_000, T0 / 60_000 + 1)).toEqual({ weight: 4, flagged: 3, weightSquares: 10, samples: 2 });
  });

  it('is bounded: older spans are clipped to the ring, an idle stretch ages the series', () => {
    const s = new FlagSeries(10 * 60_000, T0);
    expect(s.slots).toBe(12);
    for (let m = 0; m < 100; m++) s.add(min(m), 1, false);
    const now = T0 / 60_000 + 100;
    // Only the last 12 minutes are held: asking for 100 gives the 12 that the ring spans.
    expect(s.counts(now - 100, now).samples).toBe(12);
    s.advance(min(200));
    expect(s.counts(T0 / 60_000 + 190, T0 / 60_000 + 201).samples).toBe(0);
  });

  it('restores what it saved (a restart does not blind it), and refuses another ring length', () => {
    const a = new FlagSeries(30 * 60_000, T0);
    for (let m = 0; m < 20; m++) a.add(min(m), 1, m % 4 === 0);
    const b = new FlagSeries(30 * 60_000, min(20));
    expect(b.restore(JSON.parse(JSON.stringify(a.state())))).toBe(true);
    const span = [T0 / 60_000 + 5, T0 / 60_000 + 21] as const;
    expect(b.counts(...span)).toEqual(a.counts(...span));
    expect(new FlagSeries(60 * 60_000, T0).restore(a.state())).toBe(false);
  });
});

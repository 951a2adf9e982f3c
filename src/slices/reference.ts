/**
 * What a slice is compared with (DESIGN §19): its own baseline — the day before its recent window —
 * once that holds `minBaselineSamples` answers; otherwise the rest of its service over the same steps
 * since the slice appeared, at most `recent` back (concurrent comparison: same hours, same traffic
 * mix, no history needed). The share tested is the reference's upper bound (two standard errors
 * above its Laplace-smoothed share), so a reference that came out low by chance does not page.
 * @module
 */
import type { FlagCounts } from '../metrics/flag-series.ts';
import type { FlagSeries } from '../metrics/flag-series.ts';
import type { Slice, SliceEntry } from './book.ts';
import type { ReferenceKind, SliceSettings } from './types.ts';

/** A slice's reference: where it comes from, its share as tested (upper bound) and its answers. */
export interface Reference {
  kind: ReferenceKind;
  share: number;
  samples: number;
}

/** Counts minus counts (the rest of a service without one slice). */
function minus(a: FlagCounts, b: FlagCounts): FlagCounts {
  return { weight: a.weight - b.weight, flagged: a.flagged - b.flagged, weightSquares: a.weightSquares - b.weightSquares, samples: a.samples - b.samples };
}

/** The upper bound of a reference share: Laplace-smoothed, plus two standard errors. */
export function referenceHigh(flagged: number, n: number): number {
  const p = (flagged + 1) / (n + 2);
  return Math.min(0.95, p + 2 * Math.sqrt((p * (1 - p)) / Math.max(1, n)));
}

/** The reference of `entry` (of `slice`) at `now` against the service totals `totals`; undefined = not testable yet. */
export function referenceOf(slice: Slice, entry: SliceEntry, totals: FlagSeries, now: number, s: SliceSettings): Reference | undefined {
  const c = entry.series.stepOf(now);
  const recent = Math.round(s.recentMs / s.stepMs);
  const baseline = Math.round(s.baselineMs / s.stepMs);
  const own = entry.series.counts(c - recent - baseline, c - recent);
  if (own.samples >= s.minBaselineSamples) return { kind: 'own_baseline', share: referenceHigh(own.flagged, own.samples), samples: own.samples };
  // Since the slice appeared; while that holds too few answers of the rest, the whole recent window (the same hours).
  for (const from of [Math.max(entry.series.stepOf(slice.firstSeenMs), c - recent), c - recent]) {
    const rest = minus(totals.counts(from, c + 1), entry.series.counts(from, c + 1));
    if (rest.samples >= s.minReferenceSamples) return { kind: 'concurrent', share: referenceHigh(rest.flagged, rest.samples), samples: rest.samples };
  }
  return undefined;
}

/**
 * The slice's share of its service's answers: `share` since it appeared (at most the recent window
 * back; the whole recent window while that holds fewer than `minReferenceSamples` answers of the
 * service) — above `maxShare` the slice is its service (not tested); `budgetShare`, the larger of the
 * two, is its share of the false-page budget's answers (a new slice's share over the recent window
 * would be too low, and its threshold too).
 */
export function shareOfService(slice: Slice, entry: SliceEntry, totals: FlagSeries, now: number, s: SliceSettings): { share: number; budgetShare: number } {
  const c = entry.series.stepOf(now);
  const recent = c - Math.round(s.recentMs / s.stepMs);
  const ratio = (from: number) => {
    const all = totals.counts(from, c + 1).samples;
    return { all, share: all > 0 ? entry.series.counts(from, c + 1).samples / all : 0 };
  };
  const since = ratio(Math.max(entry.series.stepOf(slice.firstSeenMs), recent));
  const window = ratio(recent);
  return { share: since.all >= s.minReferenceSamples ? since.share : window.share, budgetShare: Math.max(since.share, window.share) };
}

/**
 * Judged answers of a service per 30 days, from its totals: the answers of the span seen (at most
 * baseline + recent, at least an hour) scaled to 30 days.
 */
export function answersPer30Days(totals: FlagSeries, firstSeenMs: number, now: number, s: SliceSettings): number {
  const spanMs = Math.min(s.baselineMs + s.recentMs, Math.max(3_600_000, now - firstSeenMs));
  const c = totals.stepOf(now);
  const n = totals.counts(c - Math.ceil(spanMs / s.stepMs), c + 1).samples;
  return (n * 30 * 86_400_000) / spanMs;
}

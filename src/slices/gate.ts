/**
 * Release comparison for deploy gates (canary analysis, as Kayenta does for infrastructure metrics,
 * here for answer quality): each live release of a service against its baseline — the release with
 * most answers in the window — over the same steps since the candidate appeared, metric by metric,
 * with one verdict: `worse`, `no_worse` or `inconclusive` (`statistic.ts`). The live verdict reads the
 * slice book; `ragwatch release compare` counts score records with the same functions.
 * @module
 */
import type { ScoreRecord } from '../triplet.ts';
import { entryKey, type ServiceBook, type Slice } from './book.ts';
import { compareMetric, overallVerdict, type MetricComparison, type ReleaseCounts, type ReleaseVerdict } from './statistic.ts';
import type { ReleaseSettings, ReleaseStatus, ServiceReleases, SliceRule } from './types.ts';

/** The comparison of two releases over the same period: one verdict and one line per metric × judge. */
export interface ReleaseComparison {
  verdict: ReleaseVerdict;
  baseline: string;
  candidate: string;
  metrics: Array<MetricComparison & { metric: string; judge: string }>;
}

/** Compares per-metric counts of two releases (keys `metric\u0000judge`); metrics with answers in neither are left out. */
export function compareReleases(baseline: string, candidate: string, counts: ReadonlyMap<string, { metric: string; judge: string; baseline: ReleaseCounts; candidate: ReleaseCounts }>, s: ReleaseSettings): ReleaseComparison {
  const rows = [...counts.values()].filter((c) => c.baseline.n > 0 || c.candidate.n > 0).sort((a, b) => a.metric.localeCompare(b.metric) || a.judge.localeCompare(b.judge));
  const metrics = rows.map((c) => ({ metric: c.metric, judge: c.judge, ...compareMetric(c.baseline, c.candidate, s, rows.length) }));
  return { verdict: overallVerdict(metrics.map((m) => m.verdict)), baseline, candidate, metrics };
}

/** Answers of a release slice in the steps [from, to) (its busiest metric × judge). */
function answers(slice: Slice, from: number, to: number): number {
  let n = 0;
  for (const e of slice.entries.values()) n = Math.max(n, e.series.counts(from, to).samples);
  return n;
}

/** The live releases of one service with each candidate's verdict; undefined without a release answering in the window. */
export function serviceReleases(b: ServiceBook, now: number, s: ReleaseSettings, stepMs: number): ServiceReleases | undefined {
  const map = b.slices.get('release');
  if (!map) return undefined;
  const step = Math.floor(now / stepMs);
  const windowFrom = step - Math.ceil(s.windowMs / stepMs);
  const live = [...map.values()].filter((r) => now - r.lastSeenMs <= s.windowMs).map((r) => ({ slice: r, answers: answers(r, windowFrom, step + 1) })).filter((r) => r.answers > 0);
  if (live.length === 0) return undefined;
  live.sort((a, b) => b.answers - a.answers || a.slice.firstSeenMs - b.slice.firstSeenMs);
  const base = live[0]!.slice;
  const releases: ReleaseStatus[] = live.map(({ slice, answers: n }) => {
    const status: ReleaseStatus = { release: slice.value, answers: n, firstSeenMs: slice.firstSeenMs, lastSeenMs: slice.lastSeenMs };
    if (slice === base) return status;
    // The same steps for both: from the candidate's first answer (within the window) to now.
    const from = Math.max(windowFrom, Math.floor(slice.firstSeenMs / stepMs));
    const counts = new Map<string, { metric: string; judge: string; baseline: ReleaseCounts; candidate: ReleaseCounts }>();
    for (const [key, e] of slice.entries) {
      const c = e.series.counts(from, step + 1);
      const bc = base.entries.get(key)?.series.counts(from, step + 1);
      counts.set(key, { metric: e.metric, judge: e.judge, candidate: { n: c.samples, flagged: c.flagged }, baseline: { n: bc?.samples ?? 0, flagged: bc?.flagged ?? 0 } });
    }
    const cmp = compareReleases(base.value, slice.value, counts, s);
    return { ...status, verdict: cmp.verdict, metrics: cmp.metrics };
  });
  return { service: b.service, baseline: base.value, releases };
}

/** Flagged indicator of a score (or its calibrated P(bad)); undefined when the answer is not counted. */
export type FlagOf = (rule: SliceRule, judge: string, score: number) => number | undefined;

/**
 * Offline: compares two releases of a service in score records over the period both answered (from
 * the later first record to the earlier last one).
 */
export function compareRecords(records: readonly ScoreRecord[], rules: readonly SliceRule[], flagOf: FlagOf, opts: { baseline: string; candidate: string; service?: string }, s: ReleaseSettings): ReleaseComparison & { period: { from: string | null; to: string | null } } {
  const mine = records.filter((r) => r.origin !== 'probe' && (opts.service === undefined || r.service === opts.service));
  const span = (release: string) => {
    const ts = mine.filter((r) => r.release === release).map((r) => Date.parse(r.timestamp)).filter(Number.isFinite);
    return ts.length === 0 ? undefined : { from: Math.min(...ts), to: Math.max(...ts) };
  };
  const b = span(opts.baseline);
  const c = span(opts.candidate);
  const from = b && c ? Math.max(b.from, c.from) : undefined;
  const to = b && c ? Math.min(b.to, c.to) : undefined;
  const counts = new Map<string, { metric: string; judge: string; baseline: ReleaseCounts; candidate: ReleaseCounts }>();
  for (const rule of rules) {
    for (const r of mine) {
      const side = r.release === opts.baseline ? 'baseline' : r.release === opts.candidate ? 'candidate' : undefined;
      const score = r.scores[rule.metric as keyof ScoreRecord['scores']];
      const t = Date.parse(r.timestamp);
      if (!side || score === undefined || from === undefined || to === undefined || t < from || t > to) continue;
      const x = flagOf(rule, r.judge.kind, score);
      if (x === undefined) continue;
      const key = entryKey(rule.metric, r.judge.kind);
      const row = counts.get(key) ?? { metric: rule.metric, judge: r.judge.kind, baseline: { n: 0, flagged: 0 }, candidate: { n: 0, flagged: 0 } };
      row[side].n += 1;
      row[side].flagged += x;
      counts.set(key, row);
    }
  }
  const cmp = compareReleases(opts.baseline, opts.candidate, counts, s);
  return { ...cmp, period: { from: from === undefined ? null : new Date(from).toISOString(), to: to === undefined ? null : new Date(to).toISOString() } };
}

/**
 * The judge audit (GRAMMAR Table 1, live): how well "score below its alert threshold" flags the
 * probes the service answered wrongly. Probe outcomes are joined to the ScoreRecords of their
 * captured triplets by trace id; per metric and judge: precision = wrong among flagged, recall =
 * flagged among wrong. A metric with no flagged probe has no precision, one with no wrong probe no
 * recall (null, never 0 or 1).
 * @module
 */
import type { ProbeOutcome } from './runner.ts';
import type { ScoreRecord } from '../triplet.ts';
import type { JudgeAuditRow } from './types.ts';

/**
 * @param outcomes graded probe outcomes (errors take no part)
 * @param records score records by trace id (several per trace: one per judge)
 * @param thresholds alert threshold per metric (metrics without one are not audited)
 */
export function judgeAudit(outcomes: readonly ProbeOutcome[], records: ReadonlyMap<string, readonly ScoreRecord[]>, thresholds: Readonly<Record<string, number>>): JudgeAuditRow[] {
  const rows = new Map<string, { metric: string; judge: string; n: number; flagged: number; wrong: number; hits: number }>();
  for (const o of outcomes) {
    if (o.outcome === 'error') continue;
    const bad = o.outcome === 'wrong' || o.outcome === 'abstained';
    for (const record of records.get(o.traceId) ?? []) {
      for (const [metric, score] of Object.entries(record.scores)) {
        const threshold = thresholds[metric];
        if (threshold === undefined || score === undefined) continue;
        const key = `${metric}\u0000${record.judge.kind}`;
        let row = rows.get(key);
        if (!row) rows.set(key, (row = { metric, judge: record.judge.kind, n: 0, flagged: 0, wrong: 0, hits: 0 }));
        const flagged = score < threshold;
        row.n++;
        if (flagged) row.flagged++;
        if (bad) row.wrong++;
        if (flagged && bad) row.hits++;
      }
    }
  }
  return [...rows.values()]
    .sort((a, b) => a.metric.localeCompare(b.metric) || a.judge.localeCompare(b.judge))
    .map(({ hits, ...r }) => ({ ...r, precision: r.flagged === 0 ? null : hits / r.flagged, recall: r.wrong === 0 ? null : hits / r.wrong }));
}

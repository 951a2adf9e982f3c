/**
 * From human labels to the points a calibration is fitted on: a label on a concept (`groundedness`)
 * becomes one point for every judge metric that estimates it (`calibration.labelMetrics`) and that
 * the answer's score records hold, grouped by (metric, judge).
 * @module
 */
import type { ScoreRecord } from '../triplet.ts';
import type { LabelledScore } from './types.ts';

/** One labelled answer with its score records. */
export interface LabelledAnswer {
  id: string;
  /** Label concept → 1 (good) / 0 (bad). */
  labels: Readonly<Record<string, 0 | 1>>;
  records: readonly ScoreRecord[];
}

/** Points by `metric\u0000judge`, with the concept each was labelled on. */
export function labelledPoints(answers: readonly LabelledAnswer[], labelMetrics: Readonly<Record<string, readonly string[]>>): Map<string, { metric: string; judge: string; labelMetric: string; points: LabelledScore[] }> {
  const out = new Map<string, { metric: string; judge: string; labelMetric: string; points: LabelledScore[] }>();
  for (const a of answers) {
    for (const [concept, label] of Object.entries(a.labels)) {
      // A concept not in the map calibrates the metric of the same name.
      for (const metric of labelMetrics[concept] ?? [concept]) {
        for (const r of a.records) {
          const score = r.scores[metric as keyof typeof r.scores];
          if (score === undefined) continue;
          const key = `${metric}\u0000${r.judge.kind}`;
          let g = out.get(key);
          if (!g) out.set(key, (g = { metric, judge: r.judge.kind, labelMetric: concept, points: [] }));
          g.points.push({ id: a.id, score, label });
        }
      }
    }
  }
  return out;
}

/**
 * What moved, for a change alert: of the live window's answers of one metric and judge, the cell (a
 * release, model, route, topic or question type) whose share of flagged answers stands highest above
 * the series' baseline share, by the evidence (a one-sample z: a new release has no baseline of its
 * own, so every cell is measured against the service's).
 * @module
 */
import type { ScoredAnswer } from './cells.ts';

/** The dimensions a change notice may name, in the order ties are broken. */
const DIMENSIONS = ['release', 'model', 'route', 'topic', 'queryType'] as const;
const NAMES: Readonly<Record<string, string>> = { release: 'release', model: 'model', route: 'route', topic: 'topic', queryType: 'question type' };

/** The cell that rose most, described (`release=2.3.1: 41 % flagged (n=38) vs 5 % baseline`), or undefined when none has `minCount` answers above the baseline. */
export function risenCell(answers: readonly ScoredAnswer[], metric: string, judge: string, cut: number, baseline: number, minCount: number, label: (dimension: string, value: string) => string = (_d, v) => v): string | undefined {
  const cells = new Map<string, { dimension: string; value: string; weight: number; flagged: number; n: number }>();
  for (const a of answers) {
    const score = a.scores[metric];
    if (a.judge !== judge || score === undefined) continue;
    for (const dimension of DIMENSIONS) {
      const value = a.dims[dimension];
      if (value === undefined) continue;
      const key = `${dimension}\u0000${value}`;
      let c = cells.get(key);
      if (!c) cells.set(key, (c = { dimension, value, weight: 0, flagged: 0, n: 0 }));
      c.weight += a.weight;
      if (score <= cut) c.flagged += a.weight;
      c.n += 1;
    }
  }
  const p0 = Math.min(Math.max(baseline, 1e-6), 1 - 1e-6);
  let best: { z: number; text: string } | undefined;
  for (const c of cells.values()) {
    if (c.n < minCount || c.weight <= 0) continue;
    const share = c.flagged / c.weight;
    const z = (share - p0) / Math.sqrt((p0 * (1 - p0)) / c.n);
    if (share > baseline && (!best || z > best.z)) best = { z, text: `${NAMES[c.dimension]}=${label(c.dimension, c.value)}: ${(share * 100).toFixed(0)} % flagged (n=${c.n}) vs ${(baseline * 100).toFixed(1)} % baseline` };
  }
  return best?.text;
}

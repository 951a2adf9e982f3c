/**
 * The weakness map's cells for a set of scored answers — one function for the offline report
 * (`ragwatch weaknesses`) and the live map: every metric × judge broken down by each marginal
 * dimension (topic, question type, route, model) and, for the bivariate metrics, by topic × question
 * type; each cell with its interval and flag ({@link breakdown}), the flagged ones with their worst answers.
 * @module
 */
import type { Cell } from './breakdown.ts';

/** One scored answer with the dimensions it falls in. */
export interface ScoredAnswer {
  tripletId: string;
  judge: string;
  weight: number;
  scores: Readonly<Partial<Record<string, number>>>;
  /** `topic`, `queryType`, `route`, `model` (absent ones are left out of that dimension). */
  dims: Readonly<Record<string, string>>;
}

/** A cell of one metric and judge. */
export interface MetricCell extends Cell {
  metric: string;
  judge: string;
  /** Flagged cells: the ids of their lowest-scoring answers (at most 3), for the examples page. */
  worst?: string[];
}

/** Options of {@link weaknessCells}; all optional. */
export interface WeaknessCellsOptions {
  /** Metrics also broken down by topic × question type. Default none. */
  bivariateMetrics?: readonly string[];
  /** Answers a cell needs to be flagged. Default 20. */
  minCount?: number;
  /** False discovery rate. Default 0.05. */
  fdr?: number;
}

/** The marginal dimensions, in report order. */
export const MARGINAL_DIMENSIONS = ['topic', 'queryType', 'route', 'model', 'release'] as const;

/** The flagged cell of `metric` (and `judge`, when given) with the lowest mean; bivariate cells win ties of meaning by being more specific. */
export function worstFlagged(cells: readonly MetricCell[], metric: string, judge?: string): MetricCell | undefined {
  let worst: MetricCell | undefined;
  for (const c of cells) {
    if (!c.flagged || c.metric !== metric || (judge !== undefined && c.judge !== judge)) continue;
    if (!worst || c.mean < worst.mean) worst = c;
  }
  return worst;
}

const DIMENSION_NAMES: Readonly<Record<string, string>> = { topic: 'topic', queryType: 'question type', route: 'route', model: 'model', release: 'release' };

/** A cell's place in words: `topic "refund policy" × question type how`. */
export function cellPlace(dimensions: Readonly<Record<string, string>>, topicLabel: (id: string) => string | undefined = () => undefined): string {
  return Object.entries(dimensions)
    .map(([d, v]) => (d === 'topic' ? `topic "${topicLabel(v) ?? v}"` : `${DIMENSION_NAMES[d] ?? d} ${v}`))
    .join(' × ');
}

/** One line for people: `0.41 on topic "refund policy" × question type how (n = 57, 95 % CI 0.35–0.47; the rest 0.83)`. */
export function describeCell(cell: Cell, topicLabel?: (id: string) => string | undefined): string {
  const f = (v: number) => v.toFixed(2);
  return `${f(cell.mean)} on ${cellPlace(cell.dimensions, topicLabel)} (n = ${cell.n}, 95 % CI ${f(cell.ciLow)}–${f(cell.ciHigh)}; the rest ${cell.restMean === null ? 'n/a' : f(cell.restMean)})`;
}

/**
 * Quality over time (DESIGN §23, docs/history.md): what the history keeps of the score records and what
 * the pages and `/api/series` read of it. A *rollup* sums the answers of one series — service × metric
 * × judge × release — over one step (a minute, later `history.coarseStep`); means, flagged shares and the
 * normal band are computed from the sums when asked, so rollups merge exactly.
 * @module
 */

/** The sums of one series over one step: everything a mean, a share or a variance needs. */
export interface RollupSums {
  /** Judged answers (unweighted). */
  answers: number;
  /** Σ sampling weight (the estimated number of answers in production). */
  weight: number;
  /** Σ weight · score. */
  weightedSum: number;
  /** Σ weight · score² (the spread of the scores, for the normal band). */
  weightedSquares: number;
  /** Σ weight² (Kish's effective number of answers, for the normal band). */
  squaredWeights: number;
  /** Σ weight of the answers at or below the metric's threshold; undefined for a metric without one. */
  flaggedWeight: number | undefined;
}

/** One series: the labels a rollup is kept under. */
export interface SeriesKey {
  service: string;
  metric: string;
  /** The judge kind (`llm`, `embedded`). */
  judge: string;
  /** The release (`service.version`); `''` when the answers carried none. */
  release: string;
}

/** A rollup as read back. */
export interface Rollup extends SeriesKey, RollupSums {
  /** Start of its step, milliseconds since the epoch. */
  startMs: number;
  /** Width of its step, milliseconds (one minute, or `history.coarseStep`). */
  stepMs: number;
}

/** One alert instance's firing, from its notifications (`startsAt` of the firing, `endsAt` of the resolution). */
export interface Firing {
  /** Alert name (`RagwatchGroundednessLow`, `RagwatchGroundednessDrop`, …). */
  name: string;
  service: string;
  metric: string;
  judge: string | undefined;
  severity: string | undefined;
  /** The notice's other labels that tell instances apart (a slice alert's `dimension` and `slice`, a change tier). */
  labels: Record<string, string>;
  startMs: number;
  /** Undefined while firing. */
  endMs: number | undefined;
}

/** A release's first answer in the history: the change the charts mark. */
export interface ReleaseChange {
  service: string;
  release: string;
  firstMs: number;
  lastMs: number;
}

/** What `/api/series` is asked. */
export interface SeriesQuery {
  service: string;
  metric: string;
  /** Only this judge; default every judge (one series each). */
  judge?: string;
  /** Only this release; default every release summed. */
  release?: string;
  fromMs: number;
  toMs: number;
  stepMs: number;
}

/** One step of a drawn series. */
export interface SeriesPoint {
  /** Start of the step, milliseconds since the epoch. */
  t: number;
  /** Weighted mean of the step; null without answers. */
  mean: number | null;
  /** Weighted share of answers at or below the threshold; null without answers or threshold. */
  flaggedShare: number | null;
  answers: number;
  /** Σ sampling weight of the step (its estimated answers in production). */
  weight: number;
  /**
   * The normal band of the mean for a step with this many answers: the weighted mean of the
   * `history.bandWindow` before the step ± 3 standard errors (docs/history.md); null without enough history.
   */
  band: { low: number; high: number } | null;
  /** The same for the flagged share (p-chart limits around the baseline's share). */
  flaggedBand: { low: number; high: number } | null;
}

/** The points of one judge's series. */
export interface JudgeSeries {
  judge: string;
  points: SeriesPoint[];
}

/** The answer of `/api/series`: the steps, the threshold, the firings and the release changes of the window. */
export interface SeriesResult {
  service: string;
  metric: string;
  fromMs: number;
  toMs: number;
  stepMs: number;
  /** The metric's alert threshold (the line on the chart); null without one. */
  threshold: number | null;
  series: JudgeSeries[];
  firings: Firing[];
  releases: ReleaseChange[];
}

/** What the pages and the API read of the history. */
export interface HistoryView {
  /** The steps of one metric of one service over a window (empty series when nothing was kept). */
  series(query: SeriesQuery): SeriesResult;
  /** Services and their metrics × judges with rollups in `[fromMs, toMs)`, sorted. */
  catalog(fromMs: number, toMs: number): Array<{ service: string; metrics: Array<{ metric: string; judge: string }> }>;
  /** Metric names with rollups anywhere in the history. */
  metrics(): string[];
  /** The longest window it can answer for, milliseconds (`history.retention`). */
  readonly retentionMs: number;
}

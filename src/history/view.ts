/**
 * What the pages and `/api/series` read of the history: a metric's steps with their band, its
 * firings and its service's release changes over a window, and which series exist.
 * @module
 */
import { drawSeries } from './series.ts';
import type { HistoryStore } from './store.ts';
import type { HistoryView, SeriesQuery, SeriesResult } from './types.ts';

/** Options of {@link HistoryReader}; `store` is required. */
export interface HistoryReaderOptions {
  store: HistoryStore;
  /** Writes what is pending before a read (the sink's `flush`), so a chart shows the last minute. */
  flush?: () => void;
  /** Alert threshold by metric (the line on the chart). */
  thresholds?: () => Readonly<Record<string, number>>;
  /** History before each step that makes its normal band, milliseconds (`history.bandWindow`). Default 86400000. */
  bandWindowMs?: number;
  now?: () => number;
}

export class HistoryReader implements HistoryView {
  readonly #o: HistoryReaderOptions;
  readonly #store: HistoryStore;
  readonly #bandWindowMs: number;
  readonly #now: () => number;

  constructor(options: HistoryReaderOptions) {
    this.#o = options;
    this.#store = options.store;
    this.#bandWindowMs = options.bandWindowMs ?? 86_400_000;
    this.#now = options.now ?? Date.now;
  }

  get retentionMs(): number {
    return this.#store.retentionMs;
  }

  /**
   * The step a window is drawn with: `stepMs`, raised to a multiple of `history.coarseStep` when the
   * window reaches back past the one-minute rollups (a coarse rollup cannot be split).
   */
  effectiveStepMs(fromMs: number, stepMs: number): number {
    const coarse = this.#store.coarseStepMs;
    if (fromMs >= this.#now() - this.#store.fineRetentionMs || stepMs % coarse === 0) return stepMs;
    return Math.ceil(stepMs / coarse) * coarse;
  }

  series(q: SeriesQuery): SeriesResult {
    this.#o.flush?.();
    const stepMs = this.effectiveStepMs(q.fromMs, q.stepMs);
    const start = Math.floor(q.fromMs / stepMs) * stepMs;
    const rollups = this.#store.buckets({ service: q.service, metric: q.metric, judge: q.judge, release: q.release, fromMs: start - Math.ceil(this.#bandWindowMs / stepMs) * stepMs, toMs: q.toMs, stepMs });
    const threshold = this.#o.thresholds?.()[q.metric];
    return {
      service: q.service,
      metric: q.metric,
      fromMs: start,
      toMs: q.toMs,
      stepMs,
      threshold: threshold ?? null,
      series: drawSeries(rollups, { fromMs: start, toMs: q.toMs, stepMs, bandWindowMs: this.#bandWindowMs }),
      firings: this.#store.firings(q.service, q.metric, start, q.toMs).filter((f) => q.judge === undefined || f.judge === undefined || f.judge === q.judge),
      releases: this.#store.releaseChanges(q.service, start, q.toMs),
    };
  }

  catalog(fromMs: number, toMs: number): Array<{ service: string; metrics: Array<{ metric: string; judge: string }> }> {
    this.#o.flush?.();
    const out = new Map<string, Array<{ metric: string; judge: string }>>();
    for (const r of this.#store.catalog(fromMs, toMs)) {
      let metrics = out.get(r.service);
      if (!metrics) out.set(r.service, (metrics = []));
      metrics.push({ metric: r.metric, judge: r.judge });
    }
    return [...out].map(([service, metrics]) => ({ service, metrics }));
  }

  metrics(): string[] {
    this.#o.flush?.();
    return this.#store.metrics();
  }
}

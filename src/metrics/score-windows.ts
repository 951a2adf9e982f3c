/**
 * Rolling, weighted per-series score aggregates for the in-process evaluator, diagnosis and
 * `ragwatch_score_mean_ratio`: the same numbers Prometheus computes from `ragwatch_score_ratio`
 * (`rate(_sum[w]) / rate(_count[w])`) and `ragwatch_score_samples_total` (`increase(…[w])`).
 * Memory is bounded: series are the (already label-bounded) metric × judge × service
 * combinations, each holding at most `retention / resolution` time slots.
 * @module
 */
import { Gauge, type Registry } from 'prom-client';

/** Label set of one score series. */
export interface SeriesLabels {
  metric: string;
  judge: string;
  service: string;
}

/** Windowed aggregate of one series. */
export interface WindowAggregate extends SeriesLabels {
  /** Weighted mean Σ(w·score)/Σw; undefined when nothing fell in the window. */
  mean: number | undefined;
  /** Σ weights (estimated population count). */
  weight: number;
  /** Judged samples (unweighted). */
  samples: number;
}

interface Slot {
  index: number;
  sum: number;
  weight: number;
  samples: number;
}

/** Options of {@link ScoreWindows}; all optional. */
export interface ScoreWindowsOptions {
  /** Longest window that will be asked for, milliseconds. Default 1800000 (30 min). */
  retentionMs?: number;
  /** Slot width, milliseconds. Default max(1000, retentionMs / 240). */
  resolutionMs?: number;
  /** Clock, milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
}

export class ScoreWindows {
  readonly #retentionMs: number;
  readonly #resolutionMs: number;
  readonly #now: () => number;
  readonly #series = new Map<string, { labels: SeriesLabels; slots: Slot[] }>();

  constructor(options: ScoreWindowsOptions = {}) {
    this.#retentionMs = options.retentionMs ?? 30 * 60_000;
    this.#resolutionMs = options.resolutionMs ?? Math.max(1_000, Math.ceil(this.#retentionMs / 240));
    this.#now = options.now ?? Date.now;
  }

  /** Records one score with its sampling weight. Non-finite values and non-positive weights are ignored. */
  add(labels: SeriesLabels, score: number, weight = 1): void {
    if (!Number.isFinite(score) || !Number.isFinite(weight) || weight <= 0) return;
    const key = `${labels.metric}\u0000${labels.judge}\u0000${labels.service}`;
    let series = this.#series.get(key);
    if (!series) {
      series = { labels: { metric: labels.metric, judge: labels.judge, service: labels.service }, slots: [] };
      this.#series.set(key, series);
    }
    const index = Math.floor(this.#now() / this.#resolutionMs);
    let last = series.slots.at(-1);
    if (!last || last.index !== index) {
      last = { index, sum: 0, weight: 0, samples: 0 };
      series.slots.push(last);
      this.#prune(series.slots, index);
    }
    last.sum += score * weight;
    last.weight += weight;
    last.samples += 1;
  }

  #prune(slots: Slot[], nowIndex: number): void {
    const oldest = nowIndex - Math.ceil(this.#retentionMs / this.#resolutionMs);
    let drop = 0;
    while (drop < slots.length && slots[drop]!.index < oldest) drop++;
    if (drop > 0) slots.splice(0, drop);
  }

  /** Aggregates of every series over the last `windowMs`, optionally for one metric. */
  aggregate(windowMs: number, metric?: string): WindowAggregate[] {
    const nowIndex = Math.floor(this.#now() / this.#resolutionMs);
    const first = nowIndex - Math.ceil(windowMs / this.#resolutionMs) + 1;
    const out: WindowAggregate[] = [];
    for (const { labels, slots } of this.#series.values()) {
      if (metric !== undefined && labels.metric !== metric) continue;
      let sum = 0;
      let weight = 0;
      let samples = 0;
      for (let i = slots.length - 1; i >= 0 && slots[i]!.index >= first; i--) {
        sum += slots[i]!.sum;
        weight += slots[i]!.weight;
        samples += slots[i]!.samples;
      }
      out.push({ ...labels, mean: weight > 0 ? sum / weight : undefined, weight, samples });
    }
    return out;
  }

  /** Number of series held (bounded by the label bounds of its caller). */
  get seriesCount(): number {
    return this.#series.size;
  }
}

/**
 * A gauge that, on every scrape, shows one value per series of `windows` over `windowMs` (`mean` by
 * default; series without a mean are left out, never 0), labelled with `labelNames` of the series.
 */
export function windowGauge(options: { name: string; help: string; windows: ScoreWindows; windowMs: number; registry: Registry; labelNames: ReadonlyArray<'metric' | 'judge' | 'service'>; value?: (a: WindowAggregate) => number | undefined }): Gauge<'metric' | 'judge' | 'service'> {
  const { windows, windowMs, labelNames } = options;
  const value = options.value ?? ((a: WindowAggregate) => a.mean);
  return new Gauge({
    name: options.name,
    help: options.help,
    labelNames: [...labelNames],
    registers: [options.registry],
    collect() {
      this.reset();
      for (const a of windows.aggregate(windowMs)) {
        const v = value(a);
        if (v !== undefined) this.set(Object.fromEntries(labelNames.map((l) => [l, a[l]])), v);
      }
    },
  });
}

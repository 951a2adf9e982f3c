/**
 * A Prometheus histogram whose observations carry a weight (the sampling weight 1/p), so
 * `_sum / _count` and bucket ratios stay unbiased when strata are sampled at different rates.
 * prom-client's Histogram only counts 1 per observation; this implements the same registry
 * contract (`get()`/`reset()`) with weighted increments and optional exemplars.
 * @module
 */
import type { Metric, Registry } from 'prom-client';
import type { LabelBound } from './label-bound.ts';

type Labels = Record<string, string>;

/** An OpenMetrics exemplar attached to the bucket an observation fell in. */
export interface Exemplar {
  labelSet: Labels;
  value: number;
  /** Seconds since the epoch. */
  timestamp: number;
}

interface Series {
  labels: Labels;
  buckets: number[];
  exemplars: Array<Exemplar | undefined>;
  sum: number;
  count: number;
  /** Unweighted number of observations (judged samples), for minimum-sample guards. */
  samples: number;
  /** Sum of the squared weights: with `count` it gives the effective sample size (Σw)² / Σw². */
  weightSquares: number;
}

/** Options of {@link WeightedHistogram}. */
export interface WeightedHistogramOptions {
  name: string;
  help: string;
  labelNames: readonly string[];
  /** Upper bounds, ascending; `+Inf` is added. */
  buckets: readonly number[];
  registers?: Registry[];
  /** Per-label bounds applied to every observation (e.g. `service`), keeping the series count bounded. */
  labelBounds?: Readonly<Record<string, LabelBound>>;
  /** When set, also exposes a counter of unweighted observations under this name (e.g. `ragwatch_score_samples_total`). */
  samplesName?: string;
  /** Help text of the samples counter. */
  samplesHelp?: string;
  /** When set, also exposes a counter of the sum of squared weights under this name (the effective sample size of weighted tests). */
  weightSquaresName?: string;
  /** Help text of the squared-weights counter. */
  weightSquaresHelp?: string;
}

/** A per-series counter of a {@link WeightedHistogram} (unweighted samples, squared weights), as its own registry metric. */
class SeriesCounter {
  readonly type = 'counter';
  readonly aggregator = 'sum';
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly #series: ReadonlyMap<string, Series>;
  readonly #value: (s: Series) => number;

  constructor(name: string, help: string, labelNames: readonly string[], series: ReadonlyMap<string, Series>, value: (s: Series) => number) {
    this.name = name;
    this.help = help;
    this.labelNames = labelNames;
    this.#series = series;
    this.#value = value;
  }

  reset(): void {
    // The histogram owns the series; resetting it resets this view.
  }

  get() {
    const values = [...this.#series.values()].map((s) => ({ labels: s.labels, value: this.#value(s) }));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}

export class WeightedHistogram {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly labelNames: readonly string[];
  readonly #bounds: number[];
  readonly #series = new Map<string, Series>();
  readonly #labelBounds: Readonly<Record<string, LabelBound>>;

  constructor(options: WeightedHistogramOptions) {
    this.name = options.name;
    this.help = options.help;
    this.labelNames = options.labelNames;
    this.#bounds = [...options.buckets].sort((a, b) => a - b);
    this.#labelBounds = options.labelBounds ?? {};
    const counters = [
      ...(options.samplesName ? [new SeriesCounter(options.samplesName, options.samplesHelp ?? `Unweighted observations of ${this.name}.`, this.labelNames, this.#series, (s) => s.samples)] : []),
      ...(options.weightSquaresName ? [new SeriesCounter(options.weightSquaresName, options.weightSquaresHelp ?? `Sum of the squared weights of ${this.name}.`, this.labelNames, this.#series, (s) => s.weightSquares)] : []),
    ];
    for (const r of options.registers ?? []) {
      r.registerMetric(this as unknown as Metric);
      for (const c of counters) r.registerMetric(c as unknown as Metric);
    }
  }

  /** The (bounded) label values an observation with `labels` is recorded under. */
  boundLabels(labels: Labels): Labels {
    const picked: Labels = {};
    for (const n of this.labelNames) {
      const bound = this.#labelBounds[n];
      picked[n] = bound ? bound.get(labels[n]) : (labels[n] ?? '');
    }
    return picked;
  }

  #seriesOf(labels: Labels): Series {
    const picked = this.boundLabels(labels);
    const key = this.labelNames.map((n) => picked[n]).join('\u0000');
    let s = this.#series.get(key);
    if (!s) {
      s = { labels: picked, buckets: this.#bounds.map(() => 0), exemplars: this.#bounds.map(() => undefined), sum: 0, count: 0, samples: 0, weightSquares: 0 };
      this.#series.set(key, s);
    }
    return s;
  }

  /** Exports zeros for a series known to exist, so `rate()` sees its first observations. */
  zero(labels: Labels): void {
    this.#seriesOf(labels);
  }

  /**
   * Records `value` with `weight` (default 1). Non-finite values or weights are ignored:
   * a metric that cannot be computed is never recorded.
   */
  observe(labels: Labels, value: number, weight = 1, exemplarLabels?: Labels): void {
    if (!Number.isFinite(value) || !Number.isFinite(weight) || weight <= 0) return;
    const s = this.#seriesOf(labels);
    s.sum += value * weight;
    s.count += weight;
    s.samples += 1;
    s.weightSquares += weight * weight;
    const i = this.#bounds.findIndex((b) => value <= b);
    if (i >= 0) {
      s.buckets[i]! += weight;
      if (exemplarLabels) s.exemplars[i] = { labelSet: exemplarLabels, value, timestamp: Date.now() / 1000 };
    }
  }

  /** Number of label combinations (series groups) held. */
  get seriesCount(): number {
    return this.#series.size;
  }

  reset(): void {
    this.#series.clear();
  }

  /** prom-client registry contract. */
  get() {
    const values: Array<{ metricName: string; labels: Record<string, string | number>; value: number; exemplar?: Exemplar }> = [];
    for (const s of this.#series.values()) {
      let cumulative = 0;
      this.#bounds.forEach((bound, i) => {
        cumulative += s.buckets[i]!;
        const v: (typeof values)[number] = { metricName: `${this.name}_bucket`, labels: { ...s.labels, le: bound }, value: cumulative };
        const ex = s.exemplars[i];
        if (ex) v.exemplar = ex;
        values.push(v);
      });
      values.push({ metricName: `${this.name}_bucket`, labels: { ...s.labels, le: '+Inf' }, value: s.count });
      values.push({ metricName: `${this.name}_sum`, labels: s.labels, value: s.sum });
      values.push({ metricName: `${this.name}_count`, labels: s.labels, value: s.count });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}

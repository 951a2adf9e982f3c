/**
 * Stratified sampler: one bounded label (route, model, service or an attribute) splits traffic
 * into strata, each with its own deterministic rate or a per-minute quota; values not configured
 * fall in `other` at the default rate. Every sampled triplet carries weight = 1/p of its stratum.
 * @module
 */
import { samplingKey, unitHash } from './hash.ts';
import type { Sampler, SamplingDecision } from './types.ts';
import type { Triplet } from '../triplet.ts';

/** Which label defines the strata. */
export type StratumLabel = 'none' | 'route' | 'model' | 'service' | 'attribute' | 'topic';

/** Options of {@link StratifiedSampler}; all optional. */
export interface StratifiedSamplerOptions {
  /** Label defining the strata. Default `none` (one stratum `all`). */
  by?: StratumLabel;
  /** Attribute name when `by` is `attribute`. */
  attribute?: string;
  /** Rate per stratum value, in (0, 1]. */
  rates?: Readonly<Record<string, number>>;
  /** Judged triplets per minute per stratum value. */
  quotasPerMinute?: Readonly<Record<string, number>>;
  /** Rate of `other` (and of `all` when `by` is `none`), in [0, 1]. Default 1. */
  defaultRate?: number;
  /** `by: topic`: the question's topic id (`t3`), undefined while no topic model is known. Must be cheap: it runs per triplet. */
  topicOf?: (query: string) => string | undefined;
  /** `by: topic`: judged triplets per minute of every topic not listed in `rates`/`quotasPerMinute` (each topic its own stratum). */
  eachQuotaPerMinute?: number;
  /**
   * `by: attribute`: the value the attribute holding a configured stratum value has on a triplet (its
   * pseudonym for an identifier capture pseudonymises); the stratum keeps the configured name. Default: the value.
   */
  carriedValue?: (key: string, value: string) => string | number | boolean;
}

const MINUTE_MS = 60_000;

/** Per-stratum quota state: counts in the current and previous minute. */
interface QuotaWindow {
  minute: number;
  seen: number;
  taken: number;
  previousSeen: number;
}

function clampRate(rate: number): number {
  return Number.isFinite(rate) ? Math.min(1, Math.max(0, rate)) : 0;
}

/** Per-stratum deterministic rates or per-minute quotas on one bounded label. */
export class StratifiedSampler implements Sampler {
  readonly #by: StratumLabel;
  readonly #attribute: string | undefined;
  readonly #rates: ReadonlyMap<string, number>;
  readonly #quotas: ReadonlyMap<string, number>;
  readonly #defaultRate: number;
  readonly #topicOf: ((query: string) => string | undefined) | undefined;
  readonly #eachQuota: number | undefined;
  /** `by: attribute`: configured stratum value by the value a triplet carries, where they differ (pseudonyms). */
  readonly #named = new Map<string, string>();
  readonly #windows = new Map<string, QuotaWindow>();

  constructor(options: StratifiedSamplerOptions = {}) {
    this.#by = options.by ?? 'none';
    this.#attribute = options.attribute;
    this.#rates = new Map(Object.entries(options.rates ?? {}).map(([k, v]) => [k, clampRate(v)]));
    this.#quotas = new Map(Object.entries(options.quotasPerMinute ?? {}).filter(([, q]) => q > 0));
    this.#defaultRate = clampRate(options.defaultRate ?? 1);
    this.#topicOf = options.topicOf;
    this.#eachQuota = options.eachQuotaPerMinute !== undefined && options.eachQuotaPerMinute > 0 ? options.eachQuotaPerMinute : undefined;
    const attribute = this.#attribute;
    if (this.#by === 'attribute' && attribute !== undefined && options.carriedValue) {
      for (const name of [...this.#rates.keys(), ...this.#quotas.keys()]) {
        const carried = String(options.carriedValue(attribute, name));
        if (carried !== name) this.#named.set(carried, name);
      }
    }
  }

  /** The stratum a triplet falls in (a configured value, `other`, or `all`). */
  stratumOf(triplet: Triplet): string {
    if (this.#by === 'none') return 'all';
    const value = this.#labelValue(triplet);
    if (value !== undefined && (this.#rates.has(value) || this.#quotas.has(value))) return value;
    // Topic ids are bounded (weakness.topicCount + other), so each is a stratum of its own.
    if (this.#by === 'topic' && value !== undefined) return value;
    return 'other';
  }

  shouldSample(triplet: Triplet, nowMs: number = Date.now()): SamplingDecision {
    const stratum = this.stratumOf(triplet);
    const quota = this.#quotas.get(stratum) ?? (this.#by === 'topic' && !this.#rates.has(stratum) ? this.#eachQuota : undefined);
    const rate = quota === undefined ? (this.#rates.get(stratum) ?? this.#defaultRate) : this.#quotaRate(stratum, quota, nowMs);
    const rule = quota === undefined ? (this.#by === 'none' ? 'rate' : 'stratum_rate') : 'stratum_quota';
    if (rate <= 0 || unitHash(samplingKey(triplet)) >= rate) return { sampled: false, rule };
    if (quota !== undefined) {
      const w = this.#windows.get(stratum)!;
      if (w.taken >= quota) return { sampled: false, rule };
      w.taken++;
    }
    return { sampled: true, sampling: { weight: 1 / rate, stratum, rule } };
  }

  /**
   * Adaptive rate for a quota stratum: quota / expected arrivals this minute, where the expected
   * count is the larger of last minute's and this minute's so far. The weight 1/p is therefore an
   * estimate (exact when traffic is steady); the hard cap on `taken` keeps the judge budget.
   */
  #quotaRate(stratum: string, quota: number, nowMs: number): number {
    const minute = Math.floor(nowMs / MINUTE_MS);
    let w = this.#windows.get(stratum);
    if (!w) {
      w = { minute, seen: 0, taken: 0, previousSeen: 0 };
      this.#windows.set(stratum, w);
    } else if (w.minute !== minute) {
      w.previousSeen = minute === w.minute + 1 ? w.seen : 0;
      w.minute = minute;
      w.seen = 0;
      w.taken = 0;
    }
    w.seen++;
    return Math.min(1, quota / Math.max(1, w.previousSeen, w.seen));
  }

  #labelValue(triplet: Triplet): string | undefined {
    switch (this.#by) {
      case 'route':
        return triplet.route;
      case 'model':
        return triplet.model;
      case 'service':
        return triplet.service;
      case 'topic':
        return this.#topicOf?.(triplet.query);
      case 'attribute': {
        const attrs = triplet.attributes;
        const v = this.#attribute === undefined || attrs === undefined || !Object.hasOwn(attrs, this.#attribute) ? undefined : attrs[this.#attribute];
        if (v === undefined) return undefined;
        const carried = String(v);
        return this.#named.get(carried) ?? carried;
      }
      default:
        return undefined;
    }
  }

  toString(): string {
    return `StratifiedSampler{by=${this.#by},strata=${[...this.#rates.keys(), ...this.#quotas.keys()].join('|') || '-'},default=${this.#defaultRate}}`;
  }
}

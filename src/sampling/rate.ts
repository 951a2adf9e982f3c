/**
 * Deterministic rate sampler: `hash(traceId) < rate`.
 * @module
 */
import { samplingKey, unitHash } from './hash.ts';
import type { Sampler, SamplingDecision } from './types.ts';
import type { Triplet } from '../triplet.ts';

/** One deterministic rate for every triplet (stratum `all`). */
export class RateSampler implements Sampler {
  readonly #rate: number;

  /** @param rate share of traces sampled, clamped to [0, 1] (NaN → 0). */
  constructor(rate: number) {
    this.#rate = Number.isFinite(rate) ? Math.min(1, Math.max(0, rate)) : 0;
  }

  shouldSample(triplet: Triplet): SamplingDecision {
    if (this.#rate > 0 && unitHash(samplingKey(triplet)) < this.#rate) {
      return { sampled: true, sampling: { weight: 1 / this.#rate, stratum: 'all', rule: 'rate' } };
    }
    return { sampled: false, rule: 'rate' };
  }

  toString(): string {
    return `RateSampler{${this.#rate}}`;
  }
}

/**
 * Sampling stage contract: decides which captured triplets are judged. Synchronous, pure,
 * cheap: it runs on the capture path.
 * @module
 */
import type { SamplingInfo, Triplet } from '../triplet.ts';

/** A sampler's decision; a sampled triplet carries weight = 1/p, its stratum and the rule that chose it. */
export type SamplingDecision = { sampled: true; sampling: SamplingInfo } | { sampled: false; rule: string };

export interface Sampler {
  shouldSample(triplet: Triplet): SamplingDecision;
  /** Human-readable description, e.g. `RateSampler{0.1}`. */
  toString(): string;
}

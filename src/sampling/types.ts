/**
 * Sampling stage contract: decides which captured triplets are judged. Synchronous, cheap and
 * allocation-light: it runs on the capture path (no I/O, no await, never throws).
 * @module
 */
import type { SamplingInfo, Triplet } from '../triplet.ts';

/** A sampler's decision; a sampled triplet carries weight = 1/p, its stratum and the rule that chose it. */
export type SamplingDecision = { sampled: true; sampling: SamplingInfo } | { sampled: false; rule: string };

export interface Sampler {
  /**
   * Decides for one triplet.
   * @param nowMs clock for quota windows, epoch milliseconds; default `Date.now()`.
   */
  shouldSample(triplet: Triplet, nowMs?: number): SamplingDecision;
  /** Human-readable description, e.g. `RateSampler{0.1}`. */
  toString(): string;
}

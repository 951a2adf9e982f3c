/**
 * Rule sampler: ordered rules force triplets in or out by route, model, service, attributes or a
 * signal (empty response, latency above a bound, negative user feedback); the first match wins,
 * and triplets no rule matches go to the fallback sampler (stratified/rate). Attributes are read
 * from `Triplet.attributes`, which capture fills with the attributes the configuration names.
 * @module
 */
import { negativeFeedbackTest, type FeedbackSignalOptions } from './feedback-signal.ts';
import { samplingKey, unitHash } from './hash.ts';
import type { Sampler, SamplingDecision } from './types.ts';
import type { Triplet } from '../triplet.ts';

type AttributeValue = string | number | boolean;

/** Conditions of a rule; all given ones must hold. */
export interface RuleMatch {
  route?: string | undefined;
  model?: string | undefined;
  service?: string | undefined;
  attributes?: Readonly<Record<string, AttributeValue>> | undefined;
  emptyResponse?: boolean | undefined;
  /** Generation duration strictly above this, milliseconds. */
  latencyAboveMs?: number | undefined;
  negativeFeedback?: boolean | undefined;
}

/** One sampling rule. */
export interface SamplingRule {
  /** Reported as `sampling.rule`; default `rule<index>`. */
  name?: string | undefined;
  action: 'in' | 'out';
  /** Share of matching traces an `in` rule samples, deterministic on the trace id. Default 1. */
  rate?: number | undefined;
  match: RuleMatch;
}

/** Options of {@link RulesSampler}. */
export interface RulesSamplerOptions {
  rules?: readonly SamplingRule[];
  /** Decides when no rule matches (and gives the stratum of forced-in triplets). */
  fallback: Sampler & { stratumOf?(triplet: Triplet): string };
  /** What `negativeFeedback` reads as negative: the `feedback` section's attributes and values. Default: that section's defaults. */
  feedback?: FeedbackSignalOptions;
  /**
   * The value attribute `key` holding a configured `value` has on a triplet: its pseudonym for an
   * identifier capture pseudonymises (`Capture.pseudonymOf`), else the value. Default: the value.
   */
  carriedValue?: (key: string, value: AttributeValue) => AttributeValue;
}

interface CompiledRule {
  name: string;
  action: 'in' | 'out';
  rate: number;
  test: (t: Triplet) => boolean;
}

/** Ordered force-in/force-out rules in front of a fallback sampler. */
export class RulesSampler implements Sampler {
  readonly #rules: CompiledRule[];
  readonly #fallback: RulesSamplerOptions['fallback'];

  constructor(options: RulesSamplerOptions) {
    this.#fallback = options.fallback;
    const negative = negativeFeedbackTest(options.feedback);
    const carriedValue = options.carriedValue ?? ((_key: string, value: AttributeValue) => value);
    this.#rules = (options.rules ?? []).map((r, i) => ({
      name: r.name ?? `rule${i}`,
      action: r.action,
      rate: Math.min(1, Math.max(0, r.rate ?? 1)),
      test: compile(r.match, negative, carriedValue),
    }));
  }

  shouldSample(triplet: Triplet, nowMs?: number): SamplingDecision {
    for (const rule of this.#rules) {
      if (!rule.test(triplet)) continue;
      if (rule.action === 'out' || rule.rate <= 0 || unitHash(samplingKey(triplet)) >= rule.rate) return { sampled: false, rule: rule.name };
      const stratum = this.#fallback.stratumOf?.(triplet) ?? 'all';
      return { sampled: true, sampling: { weight: 1 / rule.rate, stratum, rule: rule.name } };
    }
    return this.#fallback.shouldSample(triplet, nowMs);
  }

  toString(): string {
    return `RulesSampler{${this.#rules.map((r) => `${r.name}:${r.action}`).join(',')} → ${this.#fallback.toString()}}`;
  }
}

const NO_ATTRIBUTES: Readonly<Record<string, AttributeValue>> = Object.freeze({});

function compile(m: RuleMatch, negative: (attributes: Readonly<Record<string, AttributeValue>>) => boolean, carriedValue: (key: string, value: AttributeValue) => AttributeValue): (t: Triplet) => boolean {
  const checks: Array<(t: Triplet) => boolean> = [];
  if (m.route !== undefined) checks.push((t) => t.route === m.route);
  if (m.model !== undefined) checks.push((t) => t.model === m.model);
  if (m.service !== undefined) checks.push((t) => t.service === m.service);
  for (const [key, value] of Object.entries(m.attributes ?? {})) {
    const expected = carriedValue(key, value);
    checks.push((t) => t.attributes !== undefined && Object.hasOwn(t.attributes, key) && t.attributes[key] === expected);
  }
  if (m.emptyResponse !== undefined) checks.push((t) => (t.response.trim() === '') === m.emptyResponse);
  if (m.latencyAboveMs !== undefined) {
    const bound = m.latencyAboveMs;
    checks.push((t) => t.latency.durationMs > bound);
  }
  if (m.negativeFeedback !== undefined) {
    checks.push((t) => negative(t.attributes ?? NO_ATTRIBUTES) === m.negativeFeedback);
  }
  return (t) => checks.every((c) => c(t));
}

/**
 * Tests on counts for slices and releases (docs/alerts.md, "Drops inside a slice"): the Bernoulli
 * CUSUM that pages a slice, the threshold that holds the false-page budget, Wilson and Newcombe
 * intervals, and the release verdict (worse / no_worse / inconclusive). Formulas:
 * `reference/alerting.md` ("Few answers: tests on counts").
 * @module
 */
import { gammaln } from 'simple-statistics';

/** Log-likelihood ratio of one answer for H1: p = p1 against H0: p = p0 (Wald; flagged = 1). */
export interface Llr {
  /** Added for a flagged answer: ln(p1/p0). */
  flagged: number;
  /** Added for an answer that is not: ln((1−p1)/(1−p0)) (negative). */
  good: number;
}

/** The LLR of a Bernoulli answer for a rise from `p0` to `p1` (0 < p0 < p1 < 1). */
export function bernoulliLlr(p0: number, p1: number): Llr {
  return { flagged: Math.log(p1 / p0), good: Math.log((1 - p1) / (1 - p0)) };
}

/**
 * One step of the Bernoulli CUSUM (Reynolds & Stoumbos 1999): `S ← max(0, S + LLR(x))`, with `x` the
 * answer's flagged indicator, or its probability of being flagged (a calibrated P(bad)).
 */
export function cusumStep(s: number, x: number, llr: Llr): number {
  return Math.max(0, s + x * llr.flagged + (1 - x) * llr.good);
}

/**
 * The rise the CUSUM is tuned to: `p1 = max(minRatio · p0, p0 + shift)`, capped below 1. A broken
 * release is grossly worse; a CUSUM detects its tuned rise fastest and smaller ones more slowly.
 */
export function alternativeShare(p0: number, shift: number, minRatio: number): number {
  return Math.min(0.99, Math.max(minRatio * p0, p0 + shift));
}

/**
 * A lower bound of ARL₀ / e^h for the Bernoulli CUSUMs ragwatch runs: measured 9.6–25 by simulation
 * for p0 from 0.5 % to 20 % and h from 5 to 9 (docs/alerts.md; checked in tests/slices/statistic.test.ts).
 * Lorden's bound alone gives ARL₀ ≥ e^h; the factor buys back part of its slack.
 */
export const ARL_FACTOR = 5;

/**
 * The CUSUM threshold h that holds a false-page budget: false alarms of one CUSUM are at most one per
 * ARL₀ answers, and ARL₀ ≥ ARL_FACTOR · e^h. The slices of one dimension partition a service's
 * answers, so with `series` tested (dimension, metric) pairs and `answersPerPeriod` judged answers
 * per budget period, `budget` false pages per period need ARL₀ ≥ answersPerPeriod · series / budget:
 * `h = ln(answersPerPeriod · series / (budget · ARL_FACTOR))`, never below `minH`.
 */
export function cusumThreshold(answersPerPeriod: number, series: number, budget: number, minH = 3): number {
  const arl0 = (Math.max(1, answersPerPeriod) * Math.max(1, series)) / budget;
  return Math.max(minH, Math.log(arl0 / ARL_FACTOR));
}

/** Upper tail of the binomial: P(X ≥ k | n, p), exact (log-space sum); 1 for k ≤ 0. */
export function binomialTail(k: number, n: number, p: number): number {
  if (k <= 0) return 1;
  if (k > n) return 0;
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  const lnC = (j: number) => gammaln(n + 1) - gammaln(j + 1) - gammaln(n - j + 1);
  let sum = 0;
  for (let j = Math.ceil(k); j <= n; j++) sum += Math.exp(lnC(j) + j * Math.log(p) + (n - j) * Math.log(1 - p));
  return Math.min(1, sum);
}

/** Horner evaluation of a polynomial with coefficients from the constant term up. */
function poly(c: readonly number[], x: number): number {
  let v = 0;
  for (let i = c.length - 1; i >= 0; i--) v = v * x + c[i]!;
  return v;
}

// Wichura's algorithm AS 241 (PPND16, Applied Statistics 37, 1988): Φ⁻¹ to about 1e-16.
const A = [3.3871328727963665, 133.14166789178438, 1971.5909503065513, 13731.69376550946, 45921.95393154987, 67265.7709270087, 33430.57558358813, 2509.0809287301227];
const B = [1, 42.31333070160091, 687.1870074920579, 5394.196021424751, 21213.794301586597, 39307.89580009271, 28729.085735721943, 5226.495278852546];
const C = [1.4234371107496835, 4.630337846156546, 5.769497221460691, 3.6478483247632045, 1.2704582524523684, 0.2417807251774506, 0.022723844989269184, 0.0007745450142783414];
const D = [1, 2.053191626637759, 1.6763848301838038, 0.6897673349851, 0.14810397642748008, 0.015198666563616457, 0.0005475938084995345, 1.0507500716444169e-09];
const E = [6.657904643501103, 5.463784911164114, 1.7848265399172913, 0.29656057182850487, 0.026532189526576124, 0.0012426609473880784, 2.7115555687434876e-05, 2.0103343992922881e-07];
const F = [1, 0.599832206555888, 0.1369298809227358, 0.014875361290850615, 0.0007868691311456133, 1.8463183175100548e-05, 1.421511758316446e-07, 2.0442631033899397e-15];

/** Φ⁻¹(p), the standard normal quantile, for 0 < p < 1. */
export function normalQuantile(p: number): number {
  const q = p - 0.5;
  if (Math.abs(q) <= 0.425) {
    const r = 0.180625 - q * q;
    return (q * poly(A, r)) / poly(B, r);
  }
  let r = Math.sqrt(-Math.log(q < 0 ? p : 1 - p));
  const z = r <= 5 ? poly(C, (r -= 1.6)) / poly(D, r) : poly(E, (r -= 5)) / poly(F, r);
  return q < 0 ? -z : z;
}

/** The one-sided normal quantile for a tail probability α (z = Φ⁻¹(1 − α)). */
export function zOf(alpha: number): number {
  return -normalQuantile(alpha);
}

/** Wilson score interval of a proportion k/n at normal quantile z; [0, 1] without answers. */
export function wilson(k: number, n: number, z: number): { low: number; high: number } {
  if (n <= 0) return { low: 0, high: 1 };
  const p = k / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/**
 * Newcombe's hybrid score interval (method 10, 1998) for the difference of two proportions
 * `kc/nc − kb/nb` (candidate minus baseline), each side at normal quantile z.
 */
export function newcombeDifference(kb: number, nb: number, kc: number, nc: number, z: number): { diff: number; low: number; high: number } {
  const pb = nb > 0 ? kb / nb : 0;
  const pc = nc > 0 ? kc / nc : 0;
  const b = wilson(kb, nb, z);
  const c = wilson(kc, nc, z);
  const diff = pc - pb;
  return { diff, low: diff - Math.sqrt((pc - c.low) ** 2 + (b.high - pb) ** 2), high: diff + Math.sqrt((c.high - pc) ** 2 + (pb - b.low) ** 2) };
}

/** The verdict of a candidate release against the baseline, per metric and overall. */
export type ReleaseVerdict = 'worse' | 'no_worse' | 'inconclusive';

/** Settings of the release comparison (`alerts.releases`). */
export interface ReleaseTestSettings {
  /** One-sided α of "worse", split over the metrics (Bonferroni). */
  alphaWorse: number;
  /** One-sided α of the non-inferiority test ("no worse"). */
  alphaNoWorse: number;
  /** Non-inferiority margin: the candidate's flagged share may exceed the baseline's by less than this. */
  margin: number;
  /** Material: "worse" also needs the candidate's share this many times the baseline's … */
  minRatio: number;
  /** … and this much higher (a share). */
  minIncrease: number;
  /** Answers each release needs before any verdict but inconclusive. */
  minSamples: number;
}

/** Flagged and judged answers of one release for one metric (flagged may be fractional: calibrated P(bad)). */
export interface ReleaseCounts {
  n: number;
  flagged: number;
}

/** The comparison of one metric: counts, the difference's interval and the metric's verdict. */
export interface MetricComparison {
  baseline: ReleaseCounts;
  candidate: ReleaseCounts;
  /** Candidate minus baseline flagged share, with the lower bound of "worse" and the upper bound of "no worse". */
  statistic: { diff: number; low: number; high: number; margin: number };
  verdict: ReleaseVerdict;
}

/** Compares one metric's counts (`metrics`: how many metrics share the α of "worse"). */
export function compareMetric(baseline: ReleaseCounts, candidate: ReleaseCounts, s: ReleaseTestSettings, metrics: number): MetricComparison {
  const worse = newcombeDifference(baseline.flagged, baseline.n, candidate.flagged, candidate.n, zOf(s.alphaWorse / Math.max(1, metrics)));
  const noWorse = newcombeDifference(baseline.flagged, baseline.n, candidate.flagged, candidate.n, zOf(s.alphaNoWorse));
  const statistic = { diff: worse.diff, low: worse.low, high: noWorse.high, margin: s.margin };
  let verdict: ReleaseVerdict = 'inconclusive';
  if (baseline.n >= s.minSamples && candidate.n >= s.minSamples) {
    const pb = baseline.flagged / baseline.n;
    const pc = candidate.flagged / candidate.n;
    if (worse.low > 0 && pc - pb >= s.minIncrease && pc >= s.minRatio * pb) verdict = 'worse';
    else if (noWorse.high < s.margin) verdict = 'no_worse';
  }
  return { baseline, candidate, statistic, verdict };
}

/** One verdict from the metrics': worse if any is, no worse if every one is (and there is one), else inconclusive. */
export function overallVerdict(verdicts: readonly ReleaseVerdict[]): ReleaseVerdict {
  if (verdicts.includes('worse')) return 'worse';
  return verdicts.length > 0 && verdicts.every((v) => v === 'no_worse') ? 'no_worse' : 'inconclusive';
}

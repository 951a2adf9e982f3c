/**
 * Quality SLO contracts (DESIGN §17): SLI = share of judged answers scoring above the metric's
 * threshold; error budget 1 − objective; burn rate = observed bad share / budget.
 * @module
 */

/** One metric's SLO. */
export interface SloRule {
  metric: string;
  /** Answers scoring at or below this are bad (the metric's alert threshold). */
  cut: number;
  objective: number;
  periodMs: number;
  /** The period as configured (`30d`), for rule ranges. */
  period: string;
  /** Judged answers the long window of a pair needs before it may fire (the metric's `minSamples`). */
  minSamples: number;
}

/** One multiwindow burn-rate condition (Google SRE workbook, "Alerting on SLOs"). */
export interface BurnWindow {
  severity: 'page' | 'ticket';
  long: string;
  short: string;
  longMs: number;
  shortMs: number;
  /** Burn rate both windows must exceed. */
  burnRate: number;
}

/** The workbook's recommended pairs for a 30-day SLO: AND within a pair, OR across pairs of a severity. */
export const BURN_WINDOWS: readonly BurnWindow[] = [
  { severity: 'page', long: '1h', short: '5m', longMs: 3_600_000, shortMs: 300_000, burnRate: 14.4 },
  { severity: 'page', long: '6h', short: '30m', longMs: 21_600_000, shortMs: 1_800_000, burnRate: 6 },
  { severity: 'ticket', long: '3d', short: '6h', longMs: 259_200_000, shortMs: 21_600_000, burnRate: 1 },
];

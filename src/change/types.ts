/**
 * Change-alert contracts (DESIGN §17): per metric × judge × service, the share of judged answers at or
 * below the metric's threshold ("flagged") in a recent window against the same series' own trailing
 * baseline.
 * @module
 */
import type { FlagRule } from '../metrics/flag-rules.ts';
import type { ChangeTierSettings } from '../metrics/change-tiers.ts';
import type { FlagCounts } from '../metrics/flag-series.ts';

export type { FlagCounts };

/** Resolved settings of one tier of the change test (`metrics/change-tiers.ts`). */
export type ChangeSettings = ChangeTierSettings;

/** One metric's change alert: its cut (the threshold). */
export type ChangeRule = FlagRule;

/** The test of one recent window against the baseline. */
export interface WindowTest {
  /** Flagged share of the recent window (weighted); null without answers. */
  recent: number | null;
  /** Two-proportion z against the baseline; null when it cannot be computed. */
  z: number | null;
  samples: number;
  /** Significant (z ≥ settings.z) and material (ratio and increase). */
  drop: boolean;
}

/** What one series shows at one evaluation. */
export interface ChangeVerdict {
  /** Baseline flagged share (Laplace-smoothed); null while the baseline is not ready. */
  baseline: number | null;
  baselineSamples: number;
  /** False while the baseline holds fewer than `minBaselineSamples` answers ("no baseline yet"). */
  baselineReady: boolean;
  long: WindowTest;
  short: WindowTest;
  /** Both windows show a drop, with enough answers in the long one. */
  firing: boolean;
}

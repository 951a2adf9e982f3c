/**
 * The tiers of the change test (a one-sided two-proportion z of a recent share against the series'
 * own trailing baseline) as configured in `alerts.change`: shared by the change alerts and the
 * feedback alert, which brings its own sample minimums.
 * @module
 */
import type { RagwatchConfig } from '../config/schema.ts';
import { requireDurationMs } from './duration.ts';

/** Resolved settings of one tier of the change test (durations in milliseconds): the change alerts' and the feedback alert's. */
export interface ChangeTierSettings {
  /** `page` (a sudden drop) or `ticket` (a slow drift): the severity label and the alert name's suffix. */
  tier: 'page' | 'ticket';
  windowMs: number;
  shortWindowMs: number;
  baselineMs: number;
  /** Resolution of the in-process snapshots (1 minute for a page, 5 for a ticket). */
  stepMs: number;
  minBaselineSamples: number;
  minSamples: number;
  z: number;
  minRatio: number;
  minIncrease: number;
  keepFiringForMs: number;
}

/** Each enabled tier's settings, with the sample minimums of `minimums` (default: `alerts.change`'s). */
export function changeTiersFromConfig(alerts: RagwatchConfig['alerts'], minimums: Pick<ChangeTierSettings, 'minBaselineSamples' | 'minSamples'> = alerts.change): ChangeTierSettings[] {
  const c = alerts.change;
  return (['page', 'ticket'] as const)
    .filter((tier) => c[tier].enabled)
    .map((tier) => ({
      tier,
      windowMs: requireDurationMs(c[tier].window),
      shortWindowMs: requireDurationMs(c[tier].shortWindow),
      baselineMs: requireDurationMs(c[tier].baseline),
      stepMs: tier === 'page' ? 60_000 : 300_000,
      minBaselineSamples: minimums.minBaselineSamples,
      minSamples: minimums.minSamples,
      z: c.z,
      minRatio: c[tier].minRatio,
      minIncrease: c[tier].minIncrease,
      keepFiringForMs: requireDurationMs(alerts.keepFiringFor),
    }));
}

/**
 * The slice and release settings of a configuration: the metrics with a change alert are tested in
 * slices (same cut, same `on`), with the resolved durations of `alerts.slices` and `alerts.releases`.
 * @module
 */
import type { RagwatchConfig } from '../config/schema.ts';
import { requireDurationMs } from '../metrics/duration.ts';
import { flagRulesFromConfig } from '../metrics/flag-rules.ts';
import type { ReleaseSettings, SliceRule, SliceSettings } from './types.ts';

/** Resolution of the slices' snapshots: 15 minutes (a day and three hours in 108 steps). */
export const SLICE_STEP_MS = 900_000;

/** What `alerts.slices` and `alerts.releases` resolve to; `rules` is empty when slices are off. */
export function sliceSettingsFromConfig(alerts: RagwatchConfig['alerts']): { rules: SliceRule[]; settings: SliceSettings; releases: ReleaseSettings } {
  const s = alerts.slices;
  const r = alerts.releases;
  const rules = s.enabled && s.dimensions.length > 0 ? flagRulesFromConfig(alerts) : [];
  return {
    rules,
    settings: {
      dimensions: s.dimensions,
      maxSlices: { release: s.maxReleases, route: s.maxRoutes, model: s.maxModels },
      falsePagesPer30Days: s.falsePagesPer30Days,
      shift: s.shift,
      minRatio: s.minRatio,
      baselineMs: requireDurationMs(s.baseline),
      recentMs: requireDurationMs(s.recent),
      stepMs: SLICE_STEP_MS,
      minBaselineSamples: s.minBaselineSamples,
      minReferenceSamples: s.minReferenceSamples,
      maxShare: s.maxShare,
      idleMs: requireDurationMs(s.idle),
      keepFiringForMs: requireDurationMs(alerts.keepFiringFor),
    },
    releases: { windowMs: requireDurationMs(r.window), margin: r.margin, alphaWorse: r.alphaWorse, alphaNoWorse: r.alphaNoWorse, minRatio: r.minRatio, minIncrease: r.minIncrease, minSamples: r.minSamples },
  };
}

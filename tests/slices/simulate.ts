/**
 * Seeded canary simulations for the slice alerts: a service at 0.2 judged answers/s over routes (and
 * releases), scores drawn from the embedded judge's real scores (`tests/helpers/real-scores.ts`),
 * replayed through a {@link SliceMonitor} on a simulated clock evaluated every 15 s (the default `alerts.evaluationIntervalMs`).
 */
import { loadConfig } from '../../src/config/load.ts';
import { SliceMonitor } from '../../src/slices/monitor.ts';
import { sliceSettingsFromConfig } from '../../src/slices/settings.ts';
import type { ScoreRecord } from '../../src/triplet.ts';
import { realStream, type Traffic } from '../helpers/real-scores.ts';

/** Where simulations start. */
export const START_MS = Date.UTC(2026, 0, 1);
/** Healthy: 5 % of the answers hallucinated. */
export const HEALTHY = 0.05;
/** Eight routes. */
export const ROUTES = ['/a', '/b', '/c', '/d', '/e', '/f', '/g', '/h'];

/** The default configuration (embedded judge metrics alerting), with overrides of `alerts`. */
export function sliceConfig(alerts: Record<string, unknown> = {}) {
  return loadConfig({ env: {}, overrides: { metrics: { processMetrics: false }, alerts } });
}

/** One page: when it started (minutes from the start) and the slice it names. */
export interface SlicePage {
  minute: number;
  dimension: string;
  slice: string;
  metric: string;
}

/** Replays `records` (time order) through a fresh monitor evaluated every `stepMs`; every page (firing start). */
export function replaySlices(records: ReadonlyArray<{ ms: number; record: ScoreRecord }>, config = sliceConfig(), stepMs = 15_000): { pages: SlicePage[]; monitor: SliceMonitor } {
  let now = START_MS;
  const monitor = new SliceMonitor({ ...sliceSettingsFromConfig(config.alerts), now: () => now });
  const pages: SlicePage[] = [];
  const firing = new Set<string>();
  let next = START_MS + stepMs;
  const evaluate = () => {
    const active = new Set<string>();
    for (const s of monitor.evaluate()) {
      const key = `${s.dimension}\u0000${s.slice}\u0000${s.metric}`;
      active.add(key);
      if (!firing.has(key)) pages.push({ minute: (now - START_MS) / 60_000, dimension: s.dimension, slice: s.slice, metric: s.metric });
    }
    firing.clear();
    for (const k of active) firing.add(k);
  };
  for (const { ms, record } of records) {
    while (next <= ms) {
      now = next;
      evaluate();
      next += stepMs;
    }
    now = ms;
    monitor.onRecord(record);
  }
  now = next;
  evaluate();
  return { pages, monitor };
}

/** Traffic of a service whose release v1 serves alone until `canaryAtMin`, then v2 takes `canaryShare` with `canaryBad` hallucinated. */
export function canaryTraffic(canaryAtMin: number, canaryShare: number, canaryBad: number, ratePerS = 0.2): Traffic {
  const at = canaryAtMin * 60_000;
  return {
    ratePerS,
    routes: ROUTES,
    release: (u, ms) => (ms >= at && u < canaryShare ? 'v2' : 'v1'),
    hallucinated: (release) => (release === 'v2' ? canaryBad : HEALTHY),
  };
}

/** Minutes from `fromMin` to the first page naming `slice` (release), or undefined. */
export function firstPage(pages: readonly SlicePage[], fromMin: number, dimension: string, slice: string): number | undefined {
  const p = pages.find((x) => x.minute >= fromMin && x.dimension === dimension && x.slice === slice);
  return p === undefined ? undefined : p.minute - fromMin;
}

/** A simulated stream (see {@link realStream}) from {@link START_MS}. */
export function stream(seed: number, minutes: number, t: Traffic) {
  return realStream(seed, START_MS, minutes, t);
}

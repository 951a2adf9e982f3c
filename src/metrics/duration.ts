/**
 * Prometheus duration strings (`30s`, `10m`, `1h`) ↔ milliseconds, for the generated rules and the
 * in-process evaluator that must share their semantics.
 * @module
 */

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Milliseconds of a single-unit Prometheus duration; `undefined` when it is not one. */
export function durationMs(duration: string): number | undefined {
  const m = /^([0-9]+)(ms|s|m|h|d|w)$/.exec(duration);
  if (!m) return undefined;
  return Number(m[1]) * UNIT_MS[m[2]!]!;
}

/** Milliseconds of a duration already validated by the config schema (throws on a malformed one). */
export function requireDurationMs(duration: string): number {
  const ms = durationMs(duration);
  if (ms === undefined) throw new TypeError(`not a Prometheus duration: "${duration}"`);
  return ms;
}

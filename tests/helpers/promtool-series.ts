/** Input series for `promtool test rules`. */

/** Cumulative counter values per minute, `perMinute(i)` added at minute i (i ≥ 1), as promtool's explicit value list. */
export function counterValues(minutes: number, perMinute: (i: number) => number): string {
  const out: number[] = [0];
  for (let i = 1; i <= minutes; i++) out.push(Number((out[i - 1]! + perMinute(i)).toFixed(6)));
  return out.join(' ');
}

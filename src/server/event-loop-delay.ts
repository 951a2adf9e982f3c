/**
 * How late this process's event loop has been running lately: the largest delay seen by Node's
 * event-loop-delay monitor over the last {@link WINDOW_MS} (the previous window's while the current
 * one is young). One monitor per process, started on first use, its timer unref'd.
 * @module
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

const WINDOW_MS = 200;
/** The monitor's sampling timer; its samples include it, so it is taken off. */
const RESOLUTION_MS = 10;

let histogram: IntervalHistogram | undefined;
let lastMaxMs = 0;

/** The event loop's recent largest delay, milliseconds. Cheap: reads a native histogram. */
export function eventLoopDelayMs(): number {
  if (!histogram) {
    histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    histogram.enable();
    setInterval(() => {
      lastMaxMs = Math.max(0, histogram!.max / 1e6 - RESOLUTION_MS);
      histogram!.reset();
    }, WINDOW_MS).unref();
  }
  return Math.max(lastMaxMs, histogram.max / 1e6 - RESOLUTION_MS, 0);
}

import { z } from 'zod';
import { promDuration } from './alerts.ts';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1_000, m: MINUTE_MS, h: 3_600_000, d: DAY_MS, w: 7 * DAY_MS };
const ms = (d: string) => {
  const m = /^([0-9]+)(ms|s|m|h|d|w)$/.exec(d)!;
  return Number(m[1]) * UNIT_MS[m[2]!]!;
};

/**
 * Quality over time in the embedded store (docs/history.md): per-minute rollups of every (service,
 * metric, judge, release) — weighted mean, flagged share, answers — plus alert firings and release
 * changes, drawn on the front door and served by `/api/series`. Kept by the process that sees every
 * score record: `ragwatch start`, or the `ragwatch slices` pod in split mode.
 */
export const historySection = z
  .object({
    /** Keep the history (and draw it on the front door). Default true. */
    enabled: z.boolean().default(true),
    /** How long rollups, firings and release changes are kept. Default `7d`. */
    retention: promDuration.default('7d'),
    /** One-minute rollups are kept this long, then merged into `coarseStep` rollups. Default `1d`. */
    fineRetention: promDuration.default('1d'),
    /** Step of the rollups older than `fineRetention`: whole minutes dividing a day. Default `10m`. */
    coarseStep: promDuration.default('10m'),
    /** Rollup rows kept at most (≈ 60 bytes each on disk, docs/history.md); the oldest go first, counted in `ragwatch_history_evictions_total`. Default 1000000. */
    maxRows: z.number().int().positive().default(1_000_000),
    /** Series (service × metric × judge × release) kept at most; answers of a new series beyond it are counted and not kept. Default 5000. */
    maxSeries: z.number().int().positive().default(5_000),
    /** Releases (`service.version`) per service within the retention; further ones count as release `other`. Default 20. */
    maxReleasesPerService: z.number().int().positive().default(20),
    /** Alert firings kept at most; the oldest go first (counted). Default 20000. */
    maxFirings: z.number().int().positive().default(20_000),
    /** Rollups are written in one transaction at most this often, milliseconds (never on the scoring path). Default 10000. */
    flushIntervalMs: z.number().int().positive().default(10_000),
    /** The normal band of a chart: control limits from this much history before each step (docs/history.md). Default `1d`. */
    bandWindow: promDuration.default('1d'),
  })
  .strict()
  .superRefine((h, ctx) => {
    const step = ms(h.coarseStep);
    if (step % MINUTE_MS !== 0 || DAY_MS % step !== 0) ctx.addIssue({ code: 'custom', path: ['coarseStep'], message: 'must be whole minutes that divide a day, e.g. "5m", "10m", "1h"' });
    if (ms(h.fineRetention) > ms(h.retention)) ctx.addIssue({ code: 'custom', path: ['fineRetention'], message: 'must not be longer than history.retention' });
    if (ms(h.retention) < ms(h.coarseStep)) ctx.addIssue({ code: 'custom', path: ['retention'], message: 'must be at least history.coarseStep' });
  });

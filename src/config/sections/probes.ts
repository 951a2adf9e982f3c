import { z } from 'zod';

/** Ground-truth probes run on their suites' schedules by `ragwatch start` and `ragwatch prober` (docs/probes.md). */
export const probesSection = z
  .object({
    /** Probe suite files (YAML, docs/probes.md), relative to this config file. Default none: nothing is probed. (env RAGWATCH_PROBE_SUITES, comma-separated) */
    suites: z.array(z.string().min(1)).default([]),
    /** After a run, how long to wait for the service's own traces of the probes (joined by trace id) and their scores, milliseconds. Default 60000. */
    joinTimeoutMs: z.number().int().positive().default(60_000),
    /** Delay before each suite's first run after start, milliseconds (later runs follow the suite's `schedule.every`). Default 10000. */
    firstRunDelayMs: z.number().int().nonnegative().default(10_000),
  })
  .strict();

import { z } from 'zod';

/** Prometheus exposition and windowed aggregates. */
export const metricsSection = z
  .object({
    /** Rolling window of `ragwatch_score_mean_ratio`, milliseconds. */
    windowMs: z.number().int().positive().default(30 * 60_000),
    /** Include prom-client's default process metrics in `/metrics`. */
    processMetrics: z.boolean().default(true),
  })
  .strict();

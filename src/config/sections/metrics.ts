import { z } from 'zod';

/** Prometheus exposition, windowed aggregates and the examples buffer. */
export const metricsSection = z
  .object({
    /** Rolling window of `ragwatch_score_mean_ratio` and `ragwatch_score_window_samples`, milliseconds. Default 1800000 (30 min). */
    windowMs: z.number().int().positive().default(30 * 60_000),
    /** Include prom-client's default process metrics in `/metrics`. Default true. */
    processMetrics: z.boolean().default(true),
    /** Services kept as the `service` label of score series; empty = the first `maxServices` seen. Others become `other`. Default []. */
    services: z.array(z.string().min(1)).default([]),
    /** Distinct `service` label values admitted on first sight when `services` is empty. Default 20. */
    maxServices: z.number().int().positive().max(1000).default(20),
    /** Low-scoring examples kept for `/api/examples` and `/examples` (ring buffer). Default 200. */
    examplesMaxRecords: z.number().int().nonnegative().default(200),
    /** Longest text kept per field (query, each source, response) in the examples buffer, characters. Default 4000. */
    examplesMaxTextChars: z.number().int().positive().default(4_000),
  })
  .strict();

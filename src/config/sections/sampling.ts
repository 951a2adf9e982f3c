import { z } from 'zod';

/** Sampling: which captured triplets are sent to the judges. */
export const samplingSection = z
  .object({
    /** Share of traces sampled, deterministic on the trace id (replicas and restarts agree). */
    rate: z.number().min(0).max(1).default(1),
  })
  .strict();

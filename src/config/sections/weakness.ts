import { z } from 'zod';

/** The live weakness map (docs/weaknesses.md): question topics learnt from the traffic. */
export const weaknessSection = z
  .object({
    /** Learn topics of the questions and export every metric per topic. Default true. */
    topics: z.boolean().default(true),
    /** Number of topics. Default 12. */
    topicCount: z.number().int().min(2).max(50).default(12),
    /** Questions collected before the topics are fitted (then kept, and reloaded from the store after a restart). Default 500. */
    warmupQueries: z.number().int().min(20).max(20_000).default(500),
    /** Questions waiting for their embedding at most; beyond, they are dropped from the topic breakdown (counted). Default 2000. */
    maxPending: z.number().int().positive().default(2_000),
  })
  .strict();

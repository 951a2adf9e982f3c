import { z } from 'zod';

/** Transport between capture/sampling and the scorer. */
export const transportSection = z
  .object({
    /** `memory` (one process, the embedded default) or `kafka` (collector/scorer split). */
    kind: z.enum(['memory', 'kafka']).default('memory'),
    /** In-memory queue bound; when full the newest triplet is dropped (counted). */
    maxQueueSize: z.number().int().positive().default(1_000),
    kafka: z
      .object({
        /** Bootstrap brokers, `host:port`. */
        brokers: z.array(z.string().min(1)).default([]),
        clientId: z.string().default('ragwatch'),
        groupId: z.string().default('ragwatch-scorer'),
        topics: z
          .object({
            triplets: z.string().default('ragwatch.triplets.v1'),
            scores: z.string().default('ragwatch.scores.v1'),
            dlq: z.string().default('ragwatch.triplets.dlq'),
          })
          .strict()
          .prefault({}),
      })
      .strict()
      .prefault({}),
  })
  .strict();

import { z } from 'zod';

/**
 * The trail of recent traces (docs/answers.md): per trace, what each stage decided — spans received,
 * assembled or incomplete, sampled or not, queued, judged or failed, exported — for the answer page
 * `/answers/<traceId>` and `GET /api/answers/<traceId>`. In memory, bounded; each role keeps its own part.
 */
export const trailSection = z
  .object({
    /** Traces whose decisions are kept (≈ 1.8 KB each: 8.9 MB of heap at the default, `npm run bench -- answers`, docs/answers.md); the oldest is evicted, counted. 0 turns the trail off. Default 5000. */
    maxTraces: z.number().int().nonnegative().default(5_000),
    /** Decisions kept per trace; further ones are counted and not kept. Default 24. */
    maxEventsPerTrace: z.number().int().positive().max(1_000).default(24),
  })
  .strict();

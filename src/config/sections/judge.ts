import { z } from 'zod';

/** Judges: how sampled triplets are scored. */
export const judgeSection = z
  .object({
    /** `embedded` (bundled model, no network) or `llm` (any OpenAI-compatible endpoint). */
    kind: z.enum(['embedded', 'llm']).default('embedded'),
    /** Judge model name for `llm`. */
    model: z.string().min(1).default('gpt-4o-mini'),
    /** OpenAI-compatible base URL (env `OPENAI_BASE_URL`). */
    baseUrl: z.string().url().optional(),
    /** API key (env `OPENAI_API_KEY`); never printed. */
    apiKey: z.string().optional(),
    /** Triplets scored concurrently. */
    concurrency: z.number().int().positive().default(2),
    embedded: z
      .object({
        /** Cosine similarity at or above which two response sentences count as repeats (self-distinctness). */
        similarityThreshold: z.number().min(0).max(1).default(0.8),
      })
      .strict()
      .prefault({}),
  })
  .strict();

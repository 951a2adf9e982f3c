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
    /** Metrics also broken down by topic × question type (the bivariate heat map). Default the groundedness-type metrics. */
    bivariateMetrics: z.array(z.string().regex(/^[a-z][a-z0-9_]*$/)).max(20).default(['groundedness', 'faithfulness', 'hallucination_free', 'grounding_lexical']),
    /** Answers a cell needs before it can be flagged as worse than the rest. Default 20. */
    minCount: z.number().int().min(2).default(20),
    /** False discovery rate of the flags (Benjamini–Hochberg over the cells of one breakdown). Default 0.05. */
    fdr: z.number().gt(0).lt(1).default(0.05),
    /** Scored answers kept for the live cells (newest; within metrics.windowMs); beyond, the oldest are evicted (counted). Default 50000. */
    maxAnswers: z.number().int().min(100).max(1_000_000).default(50_000),
    /** Re-cluster when this share of the last weakness.warmupQueries questions fell in no topic (`other`). Default 0.3; 1 turns re-clustering off. */
    driftOtherShare: z.number().gt(0).max(1).default(0.3),
  })
  .strict();

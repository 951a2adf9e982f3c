import { z } from 'zod';

/** Human calibration of the judges (docs/calibration.md). */
export const calibrationSection = z
  .object({
    /** A saved calibration (`ragwatch calibrate … --out FILE`) applied to every score: calibrated means and "needs review" shares. Default none. (env RAGWATCH_CALIBRATION_FILE) */
    file: z.string().min(1).optional(),
    /** Miscoverage α of the conformal prediction sets ({good}, {bad}, {good, bad}). Default 0.1. */
    alpha: z.number().gt(0).lt(1).default(0.1),
    /** No calibration is fitted from fewer labels (per metric and judge). Default 30. */
    minLabels: z.number().int().min(10).default(30),
    /** How often the scoring roles refit from the labels in the review store, milliseconds. Default 300000. */
    refitIntervalMs: z.number().int().positive().default(300_000),
    /** A refit needs at least this many labels new since the last one. Default 20. */
    refitMinNewLabels: z.number().int().positive().default(20),
    /** Which judge metrics a human label calibrates: label concept → metrics that estimate it. */
    labelMetrics: z
      .record(z.string().regex(/^[a-z][a-z0-9_]*$/), z.array(z.string().regex(/^[a-z][a-z0-9_]*$/)).min(1))
      .default({
        groundedness: ['groundedness', 'faithfulness', 'hallucination_free', 'claim_support', 'grounding_lexical'],
        answer_relevancy: ['answer_relevancy', 'response_query_coverage'],
        // HCAT §3.3–§4: labels imported (or asked, by adding a question) for these calibrate them too.
        completeness: ['completeness', 'completeness_distribution'],
        non_toxic: ['non_toxic'],
        pii_free: ['pii_free'],
      }),
    /** The review page's question per label concept (answered yes / no / unsure). */
    questions: z
      .record(z.string().regex(/^[a-z][a-z0-9_]*$/), z.string().min(1).max(300))
      .default({ groundedness: 'Is every statement supported by the sources?', answer_relevancy: 'Does it answer the question?' }),
  })
  .strict()
  .superRefine((c, ctx) => {
    // End users' feedback is a separate label source: a metric it calibrates is calibrated by it alone.
    const users = c.labelMetrics.user_feedback ?? [];
    for (const [concept, metrics] of Object.entries(c.labelMetrics)) {
      if (concept === 'user_feedback') continue;
      for (const m of metrics.filter((x) => users.includes(x))) ctx.addIssue({ code: 'custom', path: ['labelMetrics', 'user_feedback'], message: `${m} is also calibrated by the reviewers' concept ${concept}: users' feedback and reviewers' labels are never mixed; list it under one of them` });
    }
  });

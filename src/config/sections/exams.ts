import { z } from 'zod';

/** Exams scored with item response theory per release (docs/exams.md). */
export const examsSection = z
  .object({
    /** Exam files (YAML, `ragwatch exam generate`) whose answers in the store the long-running roles report and export. Default none. (env RAGWATCH_EXAM_FILES, comma-separated) */
    files: z.array(z.string().min(1)).default([]),
    /** How often the answers are re-read (and the IRT refitted when they changed), milliseconds. Default 60000. */
    refreshIntervalMs: z.number().int().min(1_000).default(60_000),
    /** Exam-takers (releases) exported per exam, the newest. Default 10. */
    maxTakers: z.number().int().min(2).max(100).default(10),
    /** RagwatchExamRegression: the newest release's θ below the previous one's by more than this many combined standard errors. Default 1.96 (measured false alarms 1–4 %, docs/exams.md). */
    regressionZ: z.number().min(0).max(10).default(1.96),
  })
  .strict();

import { z } from 'zod';

/** The embedded store (SQLite via node:sqlite): human labels and the answers awaiting review (docs/calibration.md). */
export const storeSection = z
  .object({
    /** Directory of the database file `ragwatch.sqlite` (created if missing; relative to the working directory). Default `data`. (env RAGWATCH_DATA_DIR) */
    dataDir: z.string().min(1).default('data'),
    /** Answers kept for review at most; the oldest unlabelled are evicted (counted). Default 5000. */
    maxReviewItems: z.number().int().positive().default(5_000),
    /**
     * Scored answers offered for review per second at most; the rest are not kept (counted in
     * `ragwatch_store_review_skipped_total`). 10/s refills the whole queue in ~8 minutes, while
     * writing every answer of a busy scorer cost a quarter of its CPU. Default 10.
     */
    maxReviewItemsPerSecond: z.number().positive().default(10),
    /** Labels kept at most; the oldest are evicted (counted). Default 100000. */
    maxLabels: z.number().int().positive().default(100_000),
    /** Longest text kept per field of a review item, characters. Default 4000. */
    maxTextChars: z.number().int().positive().default(4_000),
    /**
     * Judged answers kept for the answer page (`/answers/<traceId>`, docs/answers.md): each score record
     * with its redacted question, sources and response, text clipped at `maxTextChars`; the oldest are
     * evicted (counted). About 3–10 KB each on disk. 0: none kept (the page shows the trail only). Default 10000.
     */
    maxAnswers: z.number().int().nonnegative().default(10_000),
    /**
     * Judged answers kept per second at most; the rest are counted (`ragwatch_store_answers_skipped_total`)
     * and their pages show the trail only. Bounds the writes at overload rates (each row is a few KB in three
     * indexes). Default 50.
     */
    maxAnswersPerSecond: z.number().positive().default(50),
    /** Exam answers kept at most (docs/exams.md); the oldest are evicted. Default 200000. */
    maxExamAnswers: z.number().int().positive().default(200_000),
  })
  .strict();

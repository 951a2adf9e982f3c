/**
 * The exam suite (docs/exams.md): the probe runner's second suite kind — which exam, the service's
 * endpoint (the probes' `target`), the prompt that puts a question and its options to the service, who
 * takes it, and the limits. Validated with zod; every key is in docs/exams.md.
 * @module
 */
import { z } from 'zod';
import { targetSchema } from '../probes/suite.ts';

export const examSuiteSchema = z
  .object({
    /** The exam file (YAML, `ragwatch exam generate`), relative to the suite file. */
    exam: z.string().min(1),
    target: targetSchema,
    /** How a question is put to the service: `{{question}}` and `{{options}}` ("A) …" lines) are replaced. */
    prompt: z.string().min(1).default('{{question}}\n\n{{options}}\n\nAnswer with the letter of the correct option.'),
    /** The exam-taker's name: the service's release (`${VAR}` from the environment, e.g. `${RELEASE}`). Default `unknown`. */
    taker: z.string().min(1).max(128).default('unknown'),
    limits: z
      .object({
        /** Requests in flight at once. Default 2. */
        concurrency: z.number().int().positive().default(2),
        /** Requests per minute at most. Default 60. */
        perMinute: z.number().int().positive().default(60),
      })
      .strict()
      .prefault({}),
  })
  .strict();
export type ExamSuite = z.infer<typeof examSuiteSchema>;

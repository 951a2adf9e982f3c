/**
 * Exam contracts (docs/exams.md): a multiple-choice exam generated from the service's documents, as a
 * versioned YAML file a person reviews and edits, and the answers of its takers (releases).
 * @module
 */
import { z } from 'zod';
import { displayName } from '../config/display-name.ts';

/** Option letters: four options per question. */
export const LETTERS = ['A', 'B', 'C', 'D'] as const;

/** Bloom's revised taxonomy (the paper's appendix C); a question may be in several. */
export const BLOOM = ['remembering', 'understanding', 'applying', 'analyzing', 'evaluating', 'creating'] as const;
export type BloomCategory = (typeof BLOOM)[number];

/** One question. */
export const examItemSchema = z
  .object({
    /** Stable id (`q` + a hash of the question): answers are stored under it. */
    id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
    question: z.string().min(1).max(4_000),
    /** Exactly four options. */
    options: z.array(z.string().min(1).max(2_000)).length(4),
    /** The correct option's letter. */
    answer: z.enum(LETTERS),
    /** The document (or chunk) it was generated from. */
    source: z.string().optional(),
    bloom: z.array(z.enum(BLOOM)).default([]),
    /** what / who / when / where / why / how / yes_no / comparison / list / numeric / other. */
    questionWord: z.string().default('other'),
  })
  .strict();
export type ExamItem = z.infer<typeof examItemSchema>;

/** The exam file. */
export const examSchema = z
  .object({
    /** Exam name (a Prometheus label value). */
    exam: displayName,
    /** Bumped by every change (generation, refinement, a person's edit): answers are kept per version. */
    version: z.number().int().positive().default(1),
    generated: z.object({ at: z.string(), model: z.string().optional(), documents: z.number().int().nonnegative().optional() }).partial().optional(),
    items: z.array(examItemSchema).min(1),
  })
  .strict()
  .refine((e) => new Set(e.items.map((i) => i.id)).size === e.items.length, { message: 'two items share an id', path: ['items'] });
export type Exam = z.infer<typeof examSchema>;

/** How one answer went: `unparsed` (no option could be read) is counted apart, never as wrong. */
export type ExamOutcome = 'correct' | 'wrong' | 'unparsed' | 'error';

/** One stored answer. */
export interface ExamAnswer {
  exam: string;
  version: number;
  taker: string;
  question: string;
  outcome: ExamOutcome;
  /** Epoch ms. */
  atMs: number;
}

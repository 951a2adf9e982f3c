/**
 * The LLM calls of exam generation (the paper's appendix A, as JSON with a schema instead of free text
 * parsed by regular expressions): write one multiple-choice question from a document; answer a question
 * closed-book (no document) to drop what the model knows without the documents. Every document,
 * question and option is untrusted data inside the hardened prompt.
 * @module
 */
import { z } from 'zod';
import { newBoundary, wrapUntrusted } from '../judges/llm/prompts.ts';
import { outputBudget, parseWith, stepMessages, toJsonSchema, type Step } from '../judges/llm/step.ts';
import { LETTERS } from './types.ts';

/** A generated question before filtering. */
export interface DraftQuestion {
  question: string;
  options: [string, string, string, string];
  correct: (typeof LETTERS)[number];
}

/** Writes one difficult four-option question about `document` (`domain` names the service's subject). */
export function examQuestionStep(document: string, domain: string): Step<DraftQuestion> {
  const boundary = newBoundary([document, domain]);
  const schema = z.strictObject({ call: z.enum([boundary.nonce]), question: z.string().min(1), options: z.array(z.string().min(1)).length(4), correct: z.enum(LETTERS) });
  const task = `From the DOCUMENT (documentation of ${domain.replace(/[^\p{L}\p{N} ._-]/gu, '').slice(0, 80) || 'the service'}), write one difficult multiple-choice exam question that a reader of the document can answer and others cannot: "question" must be self-contained (never mention "the document", "the text", "the passage" or "the article"); "options" exactly 4 candidate answers, one correct and three plausible but wrong (no rephrasing of the correct one, no "all of the above" or "none of the above"); "correct" the letter (A, B, C or D) of the correct option.`;
  const contract = 'Keys: "question" (string), "options" (array of exactly 4 strings, in the order A, B, C, D), "correct" ("A" | "B" | "C" | "D").';
  return {
    name: 'exam_question',
    boundary,
    messages: stepMessages(boundary, task, [wrapUntrusted(boundary, 'document', document)], contract),
    jsonSchema: toJsonSchema(schema),
    contract,
    outputTokens: outputBudget(5, 240),
    parse(content) {
      const r = parseWith(schema, content, () => undefined);
      return r.ok ? { ok: true, value: { question: r.value.question, options: r.value.options as DraftQuestion['options'], correct: r.value.correct } } : r;
    },
  };
}

/** Answers a question from the model's own knowledge: the letter and a confidence in [0, 1]. */
export function closedBookStep(question: string, options: readonly string[]): Step<{ choice: (typeof LETTERS)[number]; confidence: number }> {
  const boundary = newBoundary([question, ...options]);
  const schema = z.strictObject({ call: z.enum([boundary.nonce]), choice: z.enum(LETTERS), confidence: z.number().min(0).max(1) });
  const task = 'Answer the multiple-choice QUESTION from your own knowledge, without any document: "choice" the letter (A, B, C or D) of the option you believe correct, "confidence" your probability (0 to 1) that it is correct.';
  const contract = 'Keys: "choice" ("A" | "B" | "C" | "D"), "confidence" (number in [0, 1]).';
  const data = [wrapUntrusted(boundary, 'question', question), ...options.map((o, i) => wrapUntrusted(boundary, 'option', o, LETTERS[i]))];
  return {
    name: 'exam_closed_book',
    boundary,
    messages: stepMessages(boundary, task, data, contract),
    jsonSchema: toJsonSchema(schema),
    contract,
    outputTokens: outputBudget(2, 20),
    parse(content) {
      return parseWith(schema, content, () => undefined);
    },
  };
}

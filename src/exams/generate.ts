/**
 * `ragwatch exam generate` (the paper's appendix A): one question per document chunk from the
 * configured LLM, then the paper's filters — unparseable answers, questions that are not
 * self-contained (its regular expressions), degenerate options (duplicates, "all/none of the above",
 * a distractor nearly the correct answer or closer to the document than it: Jaccard over words),
 * duplicate questions, and questions the model answers right without the document (closed-book, with
 * high confidence). Options are shuffled deterministically (the model favours "A"); each kept question
 * gets its Bloom categories and question word.
 * @module
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import type { LlmClient } from '../judges/llm/client.ts';
import { runStep } from '../judges/llm/step.ts';
import { bloomCategories, normalizeText, questionWord } from './classify.ts';
import { closedBookStep, examQuestionStep, type DraftQuestion } from './steps.ts';
import { LETTERS, type Exam, type ExamItem } from './types.ts';

/** Why a draft was dropped. */
export const DROP_REASONS = ['call_failed', 'unparsed', 'not_self_contained', 'duplicate_options', 'all_or_none_option', 'similar_options', 'distractor_closer_to_document', 'duplicate_question', 'answerable_closed_book'] as const;
export type DropReason = (typeof DROP_REASONS)[number];

/** Options of {@link generateExam}. */
export interface GenerateOptions {
  client: LlmClient;
  /** What the documents are about (goes into the prompt). */
  domain: string;
  /** Drop a question the model answers right closed-book with at least this confidence. Default 0.8. */
  closedBookConfidence?: number;
  /** Drop when a distractor's word Jaccard with the correct option reaches this. Default 0.8. */
  maxOptionSimilarity?: number;
  /** LLM calls in flight. Default 4. */
  concurrency?: number;
  model?: string;
  now?: () => number;
}

/** What happened to the drafts. */
export interface GenerateReport {
  documents: number;
  drafted: number;
  kept: number;
  dropped: Record<DropReason, number>;
}

/** The paper's self-containment patterns (appendix A.2). */
const NOT_SELF_CONTAINED = [
  /\b(documentation|paper|article|research|study)\b\s*"[^"]+"/i,
  /\b(discussed in|addressed in|described in|of the)\b\s*"[^"]+"/i,
  /\b(documentation|paper|article|research|study|the (document|text|passage|excerpt|context))\b/i,
];
const ALL_OR_NONE = /\b(all|none|both|neither) of (the )?(above|these|them)\b/i;

const wordsOf = (s: string) => new Set((s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1));
function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let inter = 0;
  for (const w of a) if (b.has(w)) inter++;
  return inter / (a.size + b.size - inter);
}

/** Why a draft fails the filters that need no model call, or undefined when it passes. */
export function draftProblem(draft: DraftQuestion, document: string, maxOptionSimilarity = 0.8): DropReason | undefined {
  if (NOT_SELF_CONTAINED.some((p) => p.test(draft.question))) return 'not_self_contained';
  if (new Set(draft.options.map(normalizeText)).size < 4) return 'duplicate_options';
  if (draft.options.some((o) => ALL_OR_NONE.test(o))) return 'all_or_none_option';
  const correct = LETTERS.indexOf(draft.correct);
  const words = draft.options.map(wordsOf);
  const distractors = words.filter((_, i) => i !== correct);
  if (distractors.some((d) => jaccard(d, words[correct]!) >= maxOptionSimilarity)) return 'similar_options';
  const doc = wordsOf(document);
  // A distractor the document supports better than the correct answer: the "correct" answer is doubtful.
  if (distractors.some((d) => jaccard(doc, d) > jaccard(doc, words[correct]!) + 0.1)) return 'distractor_closer_to_document';
  return undefined;
}

/** A question's id: `q` + 10 hex of its text's hash (stable across regenerations of the same text). */
export function itemId(question: string): string {
  return `q${createHash('sha256').update(normalizeText(question)).digest('hex').slice(0, 10)}`;
}

/** The options in a deterministic order from the question's hash, and the correct one's new letter. */
export function shuffleOptions(draft: DraftQuestion): { options: string[]; answer: (typeof LETTERS)[number] } {
  const h = createHash('sha256').update(draft.question).digest();
  const order = [0, 1, 2, 3].sort((a, b) => h[a]! - h[b]! || a - b);
  return { options: order.map((i) => draft.options[i]!), answer: LETTERS[order.indexOf(LETTERS.indexOf(draft.correct))]! };
}

/** Generates an exam named `name` from documents (id, text). */
export async function generateExam(name: string, documents: ReadonlyArray<{ id: string; content: string }>, options: GenerateOptions): Promise<{ exam: Exam; report: GenerateReport }> {
  const dropped = Object.fromEntries(DROP_REASONS.map((r) => [r, 0])) as Record<DropReason, number>;
  const items: ExamItem[] = [];
  const seen = new Set<string>();
  let drafted = 0;
  let next = 0;
  const usage = { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 };
  const worker = async () => {
    for (let i = next++; i < documents.length; i = next++) {
      const doc = documents[i]!;
      const r = await runStep(options.client, examQuestionStep(doc.content, options.domain), usage);
      if (!r.ok) {
        dropped[r.error.code === 'RAGWATCH_JUDGE_MALFORMED' ? 'unparsed' : 'call_failed']++;
        continue;
      }
      drafted++;
      const problem = draftProblem(r.value, doc.content, options.maxOptionSimilarity);
      if (problem) {
        dropped[problem]++;
        continue;
      }
      const key = normalizeText(r.value.question);
      if (seen.has(key)) {
        dropped.duplicate_question++;
        continue;
      }
      seen.add(key);
      const { options: opts, answer } = shuffleOptions(r.value);
      const closed = await runStep(options.client, closedBookStep(r.value.question, opts), usage);
      if (!closed.ok) {
        dropped.call_failed++;
        continue;
      }
      if (closed.value.choice === answer && closed.value.confidence >= (options.closedBookConfidence ?? 0.8)) {
        dropped.answerable_closed_book++;
        continue;
      }
      items.push({ id: itemId(r.value.question), question: r.value.question, options: opts, answer, source: doc.id, bloom: bloomCategories(r.value.question), questionWord: questionWord(r.value.question) });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 4, documents.length)) }, worker));
  items.sort((a, b) => a.id.localeCompare(b.id));
  const exam: Exam = { exam: name, version: 1, generated: { at: new Date((options.now ?? Date.now)()).toISOString(), ...(options.model ? { model: options.model } : {}), documents: documents.length }, items };
  return { exam, report: { documents: documents.length, drafted, kept: items.length, dropped } };
}

/** Text files of a folder (.txt, .md), cut into chunks of at most `maxChars` at paragraph breaks. */
export function readDocuments(dir: string, maxChars = 3_000): Array<{ id: string; content: string }> {
  const out: Array<{ id: string; content: string }> = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (['.txt', '.md'].includes(extname(name).toLowerCase())) {
        let chunk = '';
        let part = 0;
        const flush = () => {
          if (chunk.trim()) out.push({ id: `${relative(dir, path)}#${part++}`, content: chunk.trim() });
          chunk = '';
        };
        for (const para of readFileSync(path, 'utf8').split(/\n\s*\n/)) {
          if (chunk.length + para.length > maxChars) flush();
          chunk += `${para.slice(0, maxChars)}\n\n`;
        }
        flush();
      }
    }
  };
  walk(dir);
  return out;
}

/**
 * Taking an exam (docs/exams.md): every question is put to the service through the probe target
 * (fresh probe trace id, `origin="probe"` isolation, the suite's pacing), and the chosen option is read
 * from the answer — a letter ("B", "(B)", "B)", "Answer: B", "option B") or the text of exactly one
 * option. Anything else is `unparsed`, counted apart and never graded wrong; a failed request is
 * `error`, the service's fault.
 * @module
 */
import { paced } from '../probes/pace.ts';
import { askTarget, type TargetReply } from '../probes/target.ts';
import { normalizeText } from './classify.ts';
import type { ExamSuite } from './suite.ts';
import { LETTERS, type Exam, type ExamItem, type ExamOutcome } from './types.ts';

/** One question's result. */
export interface TakenQuestion {
  question: string;
  outcome: ExamOutcome;
  /** The letter read from the answer. */
  choice?: (typeof LETTERS)[number];
  traceId: string;
  reason?: string;
}

/** The option letter an answer chose, or undefined when none can be read. */
export function parseChoice(answer: string, options: readonly string[]): (typeof LETTERS)[number] | undefined {
  const text = answer.trim();
  const letter =
    /^\(?([A-D])\)?(?:[.):,\s]|$)/.exec(text)?.[1] ??
    /\b(?:answer|option|choice)(?: is)?\s*[:=]?\s*\(?([A-D])\)?(?![\p{L}\p{N}])/iu.exec(text)?.[1]?.toUpperCase();
  if (letter) return letter as (typeof LETTERS)[number];
  // The text of exactly one option (the longest first, so "Paris, Texas" is not read as "Paris").
  const a = ` ${normalizeText(text)} `;
  const hits = options.map((o, i) => ({ i, o: normalizeText(o) })).filter((x) => x.o.length > 0 && a.includes(` ${x.o} `));
  const longest = hits.filter((h) => !hits.some((other) => other !== h && other.o.includes(h.o)));
  return longest.length === 1 ? LETTERS[longest[0]!.i] : undefined;
}

/** The prompt of one question. */
export function examPrompt(template: string, item: ExamItem): string {
  const options = item.options.map((o, i) => `${LETTERS[i]}) ${o}`).join('\n');
  return template.split('{{question}}').join(item.question).split('{{options}}').join(options);
}

/** Grades one reply. */
export function gradeExamReply(item: ExamItem, reply: TargetReply): TakenQuestion {
  if (!reply.ok) return { question: item.id, outcome: 'error', traceId: reply.traceId, reason: reply.reason };
  const choice = parseChoice(reply.answer, item.options);
  if (!choice) return { question: item.id, outcome: 'unparsed', traceId: reply.traceId };
  return { question: item.id, outcome: choice === item.answer ? 'correct' : 'wrong', choice, traceId: reply.traceId };
}

/** Puts every question of `exam` to the service within the suite's limits. Never throws for the service's failures. */
export async function takeExam(suite: ExamSuite, exam: Exam, options: { ask?: (prompt: string) => Promise<TargetReply>; signal?: AbortSignal } = {}): Promise<TakenQuestion[]> {
  const ask = options.ask ?? ((prompt: string) => askTarget(suite.target, `exam_${exam.exam}`, prompt, undefined, options.signal));
  const out = await paced(exam.items, { ...suite.limits, ...(options.signal ? { signal: options.signal } : {}) }, async (item) => gradeExamReply(item, await ask(examPrompt(suite.prompt, item))));
  return out.filter((t): t is TakenQuestion => t !== undefined);
}

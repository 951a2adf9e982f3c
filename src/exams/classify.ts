/**
 * Question categories of the paper's analysis (§6.2, appendix C): Bloom's revised taxonomy by keyword
 * (a question may be in several; the keyword lists are the paper's Table 6), and the question word by
 * ragwatch's readable question-type rules (src/weakness/query-type.ts), so exams and the weakness map
 * speak of the same kinds of question.
 * @module
 */
import { queryType } from '../weakness/query-type.ts';
import type { BloomCategory } from './types.ts';

/** Lower-cased, every run of non-letters/digits one space: how questions are compared (ids, duplicates) and options matched. */
export function normalizeText(s: string): string {
  return s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

/** The paper's keywords per level (Table 6), plus the plain question forms of "remembering". */
const KEYWORDS: Record<BloomCategory, string[]> = {
  remembering: ['list', 'identify', 'name', 'define', 'state', 'mention', 'recall', 'label', 'repeat', 'recognize', 'what is', 'who is', 'when did', 'where is'],
  understanding: ['explain', 'describe', 'summarize', 'predict', 'interpret', 'paraphrase', 'translate', 'illustrate', 'rephrase', 'clarify', 'check', 'find', 'experience', 'suspect', 'review', 'notice', 'assume', 'interact', 'observe', 'understand', 'best describes', 'why'],
  applying: ['demonstrate', 'apply', 'use', 'write', 'solve', 'show', 'execute', 'implement', 'operate', 'practice', 'set', 'configure', 'try', 'follow', 'take', 'run', 'serve', 'task', 'read', 'work', 'enable', 'exist'],
  analyzing: ['analyze', 'distinguish', 'compare', 'differentiate', 'examine', 'test', 'question', 'inspect', 'debate', 'investigate', 'manage', 'optimize', 'troubleshoot', 'resolve', 'most likely reason', 'difference'],
  evaluating: ['evaluate', 'rate', 'justify', 'critique', 'decide', 'rank', 'measure', 'validate', 'assess', 'choose', 'verify', 'monitor', 'recommend', 'most', 'best'],
  creating: ['design', 'construct', 'produce', 'invent', 'devise', 'formulate', 'originate', 'assemble', 'generate', 'create', 'develop', 'compose', 'build', 'customize'],
};

const PATTERNS = Object.fromEntries(
  Object.entries(KEYWORDS).map(([level, words]) => [level, new RegExp(`\\b(${words.map((w) => w.replace(/ /g, '\\s+')).join('|')})(s|es|ed|ing|d)?\\b`, 'i')]),
) as Record<BloomCategory, RegExp>;

/** The Bloom levels whose keywords the question uses; `remembering` when none does (a plain recall question). */
export function bloomCategories(question: string): BloomCategory[] {
  const found = (Object.keys(PATTERNS) as BloomCategory[]).filter((level) => PATTERNS[level].test(question));
  return found.length > 0 ? found : ['remembering'];
}

/** The question word (the weakness map's question type). */
export function questionWord(question: string): string {
  return queryType(question);
}

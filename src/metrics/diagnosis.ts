/**
 * THELMA's metric-interplay table (reference metrics.md §4): which RAG component a pattern of
 * low/high windowed means points at. Shared by the in-process evaluator and the generated
 * Prometheus rules so both tell the on-call engineer the same thing.
 * @module
 */

/** Components a diagnosis can name; the values of `ragwatch_diagnosis_active{component}`. */
export const DIAGNOSIS_COMPONENTS = ['retriever', 'retriever_or_corpus', 'prompt', 'prompt_or_generator', 'prompt_or_chunking'] as const;
export type DiagnosisComponent = (typeof DIAGNOSIS_COMPONENTS)[number];

/** One condition of a pattern: a metric's windowed mean is below (`low`) or at/above (`high`) its threshold. */
export interface DiagnosisCondition {
  metric: string;
  /** Short name used in the text, e.g. `SQC`. */
  abbrev: string;
  level: 'low' | 'high';
  /** What the condition means, in words for the alert text. */
  says: string;
}

/** One row of the interplay table. */
export interface DiagnosisPattern {
  id: string;
  component: DiagnosisComponent;
  /** Human-readable component, e.g. `retriever or source corpus`. */
  componentText: string;
  conditions: readonly DiagnosisCondition[];
}

const c = (metric: string, abbrev: string, level: 'low' | 'high', says: string): DiagnosisCondition => ({ metric, abbrev, level, says });
const SQC_LOW = c('source_query_coverage', 'SQC', 'low', 'the sources miss parts of the questions');
const SQC_HIGH = c('source_query_coverage', 'SQC', 'high', 'the sources cover the questions');
const RQC_LOW = c('response_query_coverage', 'RQC', 'low', 'answers are incomplete');
const RQC_HIGH = c('response_query_coverage', 'RQC', 'high', 'answers address the questions');

/** THELMA's table, most specific pattern first. */
export const DIAGNOSIS_PATTERNS: readonly DiagnosisPattern[] = [
  {
    id: 'answers_beyond_sources',
    component: 'prompt',
    componentText: 'prompt',
    conditions: [SQC_LOW, RQC_HIGH, c('groundedness', 'GR', 'low', 'answers make claims the sources do not support')],
  },
  { id: 'retrieval_misses', component: 'retriever_or_corpus', componentText: 'retriever or source corpus', conditions: [SQC_LOW, RQC_LOW] },
  {
    id: 'loose_sources',
    component: 'retriever',
    componentText: 'retriever',
    conditions: [c('source_precision', 'SP', 'low', 'some retrieved sources are only loosely relevant'), SQC_HIGH],
  },
  { id: 'answer_ignores_sources', component: 'prompt_or_generator', componentText: 'prompt or generator', conditions: [RQC_LOW, SQC_HIGH] },
  {
    id: 'repetitive_answers',
    component: 'prompt_or_generator',
    componentText: 'prompt or generator',
    conditions: [c('response_self_distinctness', 'SD', 'low', 'answers repeat themselves'), c('response_precision', 'RP', 'high', 'answers stay relevant')],
  },
  {
    id: 'extraneous_content',
    component: 'prompt_or_chunking',
    componentText: 'prompt or source chunking',
    conditions: [c('response_precision', 'RP', 'low', 'answers carry extraneous content'), c('source_precision', 'SP', 'high', 'the retrieved sources are essential')],
  },
];

/** A pattern that holds, with the means that made it hold. */
export interface Diagnosis {
  pattern: DiagnosisPattern;
  means: Record<string, number>;
  /** e.g. `likely component: retriever or source corpus — the sources miss parts of the questions (SQC 0.41) and answers are incomplete (RQC 0.38)` */
  text: string;
}

/** The alert text of a pattern given the means of its metrics. */
export function diagnosisText(pattern: DiagnosisPattern, means: Readonly<Record<string, number>>): string {
  const parts = pattern.conditions.map((cond) => `${cond.says} (${cond.abbrev} ${(means[cond.metric] ?? Number.NaN).toFixed(2)})`);
  return `likely component: ${pattern.componentText} — ${parts.join(' and ')}`;
}

/**
 * Evaluates the table on windowed means. A metric without a mean (not measured, too few samples)
 * or without a threshold makes its patterns not apply: a diagnosis is never guessed.
 */
export function diagnose(means: Readonly<Record<string, number | undefined>>, thresholds: Readonly<Record<string, number | undefined>>): Diagnosis[] {
  const out: Diagnosis[] = [];
  for (const pattern of DIAGNOSIS_PATTERNS) {
    const used: Record<string, number> = {};
    const holds = pattern.conditions.every((cond) => {
      const mean = means[cond.metric];
      const threshold = thresholds[cond.metric];
      if (mean === undefined || threshold === undefined || !Number.isFinite(mean)) return false;
      used[cond.metric] = mean;
      return cond.level === 'low' ? mean < threshold : mean >= threshold;
    });
    if (holds) out.push({ pattern, means: used, text: diagnosisText(pattern, used) });
  }
  return out;
}

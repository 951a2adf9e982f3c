/**
 * The aggregate step of decompose → match → aggregate (reference metrics.md §2–3): turns the
 * per-component verdicts into the nine LLM-judge metrics. Pure and exact; a metric whose
 * components are missing is `skipped` with a reason, never 0, 1 or NaN.
 * @module
 */
import type { BuiltinMetricName, MetricScores, MetricSkips } from '../triplet.ts';

/** Three-way support verdict of one claim against the sources (QAG yes / no / idk). */
export type SupportVerdict = 'supported' | 'contradicted' | 'not_in_sources';

/** One response claim with its match verdicts. */
export interface ClaimVerdicts {
  text: string;
  /** Essential to answer (any part of) the query (response precision). */
  essential: boolean;
  /** Support by the sources; absent when there are no sources to check against. */
  verdict?: SupportVerdict;
}

/** One sub-question of the query with its coverage verdicts. */
export interface SubQuestionVerdicts {
  text: string;
  /** A source, or the source set as a whole, answers it; absent when there are no sources. */
  coveredBySources?: boolean;
  /** The response addresses its intent; absent when the response is empty. */
  coveredByResponse?: boolean;
}

/** One retrieved source with its essentiality and its facts' essentiality. */
export interface SourceVerdicts {
  index: number;
  /** The whole source contains information essential to answer the query. */
  essential: boolean;
  /** Essentiality of each fact decomposed from the source. */
  facts: ReadonlyArray<{ text: string; essential: boolean }>;
}

/** Everything the aggregation needs for one triplet. */
export interface TripletVerdicts {
  claims: readonly ClaimVerdicts[];
  subQuestions: readonly SubQuestionVerdicts[];
  sources: readonly SourceVerdicts[];
  /** False when the response is empty (coverage by the response cannot be judged). */
  hasResponse: boolean;
}

/** Scores and skip reasons of the aggregated metrics. */
export interface Aggregated {
  scores: MetricScores;
  skipped: MetricSkips;
}

function share(flags: readonly boolean[]): number {
  return flags.filter(Boolean).length / flags.length;
}

/** Macro average of booleans, or the skip reason when a component is missing. */
function meanOrSkip(flags: ReadonlyArray<boolean | undefined>, emptyReason: string): number | string {
  if (flags.length === 0) return emptyReason;
  if (flags.some((f) => f === undefined)) return 'not_judged';
  return share(flags as boolean[]);
}

/**
 * Aggregates THELMA's SP (chunk and fact level), SQC, RP, RQC, GR and the claim-level
 * faithfulness / hallucination_free from one set of per-component verdicts. Self-distinctness
 * is aggregated separately ({@link selfDistinctness}) because it needs sentence embeddings.
 */
export function aggregateVerdicts(v: TripletVerdicts): Aggregated {
  const out: Aggregated = { scores: {}, skipped: {} };
  const put = (metric: BuiltinMetricName, value: number | string) => {
    if (typeof value === 'number') out.scores[metric] = value;
    else out.skipped[metric] = value;
  };
  const noSources = v.sources.length === 0;

  put('source_precision', meanOrSkip(v.sources.map((s) => s.essential), 'no_sources'));
  const facts = v.sources.flatMap((s) => s.facts.map((f) => f.essential));
  put('source_fact_precision', noSources ? 'no_sources' : meanOrSkip(facts, 'no_source_facts'));

  const noSubQuestions = v.subQuestions.length === 0;
  put('source_query_coverage', noSubQuestions ? 'no_sub_questions' : noSources ? 'no_sources' : meanOrSkip(v.subQuestions.map((q) => q.coveredBySources), 'no_sub_questions'));
  put('response_query_coverage', noSubQuestions ? 'no_sub_questions' : !v.hasResponse ? 'empty_response' : meanOrSkip(v.subQuestions.map((q) => q.coveredByResponse), 'no_sub_questions'));

  const claimReason = v.hasResponse ? 'no_claims' : 'empty_response';
  put('response_precision', meanOrSkip(v.claims.map((c) => c.essential), claimReason));

  if (v.claims.length === 0) {
    for (const m of ['groundedness', 'faithfulness', 'hallucination_free'] as const) put(m, claimReason);
  } else if (noSources) {
    for (const m of ['groundedness', 'faithfulness', 'hallucination_free'] as const) put(m, 'no_sources');
  } else {
    const verdicts = v.claims.map((c) => c.verdict);
    put('groundedness', meanOrSkip(verdicts.map((x) => (x === undefined ? undefined : x === 'supported')), claimReason));
    // QAG: only contradictions count against faithfulness ("idk" = not in sources is faithful).
    put('faithfulness', meanOrSkip(verdicts.map((x) => (x === undefined ? undefined : x !== 'contradicted')), claimReason));
    const contradicted = meanOrSkip(verdicts.map((x) => (x === undefined ? undefined : x === 'contradicted')), claimReason);
    put('hallucination_free', typeof contradicted === 'number' ? 1 - contradicted : contradicted);
  }
  return out;
}

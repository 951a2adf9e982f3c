/**
 * Evaluators (DESIGN §21, docs/evaluators.md): a team's own criteria as metrics. `check` evaluators are
 * deterministic rules run here, once per triplet, for every judge; `llm` evaluators are judged by the LLM
 * judge in one extra call (`judges/llm/llm-evaluators.ts`) and skipped — never scored — by other judges.
 * @module
 */
import type { JudgeKind, MetricScores, MetricSkips, ScoreDetails, Triplet } from '../triplet.ts';

/** What a check rule reads of a triplet. */
export type CheckInput = Pick<Triplet, 'response' | 'sources'>;

/** One rule's outcome: pass or fail (naming the rules that failed), or skipped when it cannot say (e.g. no sources). */
export type RuleOutcome = { pass: boolean; failed: string[] } | { skipped: string };

/** One compiled check rule (`mustMatch`, `citesSource`, …, or `all` / `any` of rules). */
export interface CheckRule {
  /** The rule as a short text (`mustMatch /\[\d+\]/`), named when it fails. */
  readonly text: string;
  test(input: CheckInput): RuleOutcome;
}

/** What the evaluators add to the records of one triplet: scores, skips and explanations by metric name. */
export interface Evaluations {
  scores: MetricScores;
  skipped: MetricSkips;
  explanations: NonNullable<ScoreDetails['evaluators']>;
}

/** The evaluators of a configuration, as the scorer applies them. */
export interface EvaluatorSet {
  /** Names of the `check` evaluators. */
  readonly checkNames: readonly string[];
  /** Names of the `llm` evaluators (scored by the LLM judge itself). */
  readonly llmNames: readonly string[];
  /** Runs every check on the triplet (deterministic, no I/O). Never throws. */
  check(triplet: CheckInput): Evaluations;
  /**
   * The evaluations of the main judge's record: `checks`, plus a skip for each `llm` evaluator the judge's
   * result lacks — `no_llm_judge` for a judge that is not an LLM, `not_judged` when an LLM judge left one
   * out. Never a score.
   */
  forJudge(checks: Evaluations, judge: JudgeKind, judged: { scores: Readonly<MetricScores>; skipped: Readonly<MetricSkips> }): Evaluations;
  /** {@link check} then {@link forJudge}: what the record of one judge's result adds (offline tools: one judge, one record). */
  forRecord(triplet: CheckInput, judge: JudgeKind, judged: { scores: Readonly<MetricScores>; skipped: Readonly<MetricSkips> }): Evaluations;
}

/**
 * Probe contracts (DESIGN §13): facts, generated queries with their ground truth.
 * @module
 */
import type { MatchKind } from './suite.ts';

/** Where the facts come from: a SQLite file (opened read-only) or CSV tables (loaded in memory). */
export type FactSource = { kind: 'sqlite'; path: string } | { kind: 'csv'; tables: Record<string, Array<Record<string, string>>> };

/** One question to ask the service, with what a correct answer contains. */
export interface ProbeQuery {
  suite: string;
  template: string;
  /** Every wording (and perturbation) of one filled query logic shares a group id. */
  group: string;
  /** `text:0`, `text:1`, … or a perturbation of `text:0` (`typo`, `lowercase`). */
  variant: string;
  /** The question as asked. */
  query: string;
  /** The placeholder values of this fill-in, by placeholder (`employees.name`). */
  fill: Record<string, string>;
  /** The instantiated SQL's result: first column of every row. */
  truth: Array<string | number>;
  match: MatchKind;
  tolerance: number;
}

/** One row of the judge audit (probes/audit.ts): how well a metric's "below threshold" flags the wrong answers. */
export interface JudgeAuditRow {
  metric: string;
  judge: string;
  /** Probes (answered, with a score for this metric) in the audit. */
  n: number;
  /** Probes whose score is below the threshold. */
  flagged: number;
  /** Probes answered wrongly (or abstained). */
  wrong: number;
  precision: number | null;
  recall: number | null;
}


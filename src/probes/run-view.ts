/**
 * What the `/probes` page and `/api/probes` show of a completed run: the report, when it ran, and its
 * templates worst first, each with its wrong (and abstained) answers — question, expected, answer,
 * the module the failure is attributed to, the captured trace with the judges' scores. Bounded: a
 * few answers per template and clipped texts, whatever the suite's size. The prober keeps the last two
 * runs of each suite ({@link ProbeRuns}).
 * @module
 */
import type { AlertNotice } from '../metrics/notifier.ts';
import type { ScoreRecord } from '../triplet.ts';
import type { FailedModule, ProbeOutcome, ProbeReport } from './runner.ts';

/** Wrong answers kept per template. */
const MAX_WRONG_PER_TEMPLATE = 5;
/** Longest question, answer or source text kept, characters. */
const MAX_TEXT_CHARS = 600;
/** Sources kept per wrong answer. */
const MAX_SOURCES = 3;

const clip = (text: string) => (text.length > MAX_TEXT_CHARS ? `${text.slice(0, MAX_TEXT_CHARS)}…` : text);

/** One wrong or abstained probe answer. */
export interface ProbeMiss {
  question: string;
  expected: string[];
  answer: string;
  outcome: 'wrong' | 'abstained';
  /** Where the failure is attributed (retrieval, generator, unknown). */
  module: FailedModule | null;
  /** The wording (`text:0`, `typo`, `demographic:…`). */
  variant: string;
  traceId: string;
  /** The judges' scores of the captured trace, when it was captured and scored. */
  scores: Array<{ judge: string; scores: Record<string, number> }>;
  /** The first retrieved sources (clipped). */
  sources: string[];
}

/** One template of a run, with its misses. */
export interface ProbeTemplateRun {
  name: string;
  correct: number;
  total: number;
  /** correct / total; null when nothing was asked. */
  accuracy: number | null;
  groups: { gap: number; robust: number; non_robust: number };
  misses: ProbeMiss[];
  /** Misses beyond those kept. */
  moreMisses: number;
}

/** A completed run as the page shows it. */
export interface ProbeRun {
  suite: string;
  startedAt: string;
  completedAt: string;
  durationMs: number;
  report: ProbeReport;
  /** Worst accuracy first. */
  templates: ProbeTemplateRun[];
}

/** The page's view of a run: the report plus the misses of each template, bounded. */
export function probeRunOf(report: ProbeReport, outcomes: readonly ProbeOutcome[], records: ReadonlyMap<string, readonly ScoreRecord[]>, startedMs: number, endMs: number): ProbeRun {
  const templates = report.templates.map((t): ProbeTemplateRun => {
    const missed = outcomes.filter((o) => o.query.template === t.name && (o.outcome === 'wrong' || o.outcome === 'abstained'));
    return {
      name: t.name,
      correct: t.correct,
      total: t.total,
      accuracy: t.total === 0 ? null : t.correct / t.total,
      groups: t.groups,
      misses: missed.slice(0, MAX_WRONG_PER_TEMPLATE).map((o) => ({
        question: clip(o.query.query),
        expected: o.query.truth.slice(0, 10).map((v) => clip(String(v))),
        answer: clip(o.answer ?? ''),
        outcome: o.outcome as 'wrong' | 'abstained',
        module: o.module ?? null,
        variant: o.query.variant,
        traceId: o.traceId,
        scores: (records.get(o.traceId) ?? []).map((r) => ({ judge: r.judge.kind, scores: Object.fromEntries(Object.entries(r.scores).filter((e): e is [string, number] => typeof e[1] === 'number')) })),
        sources: (o.sources ?? []).slice(0, MAX_SOURCES).map((s) => clip(s.content)),
      })),
      moreMisses: Math.max(0, missed.length - MAX_WRONG_PER_TEMPLATE),
    };
  });
  templates.sort((a, b) => (a.accuracy ?? 2) - (b.accuracy ?? 2) || b.misses.length - a.misses.length || a.name.localeCompare(b.name));
  return { suite: report.suite, startedAt: new Date(startedMs).toISOString(), completedAt: new Date(endMs).toISOString(), durationMs: endMs - startedMs, report, templates };
}

/** A suite's schedule and its last two runs. */
export interface SuiteRuns {
  suite: string;
  /** `schedule.every` as written. */
  every: string;
  last?: ProbeRun;
  previous?: ProbeRun;
}

/** What the pages read of the prober. */
export interface ProbeRuns {
  /** Every configured suite with its last two runs, in configuration order. */
  runs(): SuiteRuns[];
  /** The probe alerts firing now. */
  firing(): AlertNotice[];
}

/**
 * The exam report (`ragwatch exam report`, the /exams page, the exam series): the IRT fit of every
 * taker's answers, per taker θ ± se, accuracy overall and by Bloom category and question word (unparsed
 * and failed answers counted apart), per question a, b, c, the exam's information curve, and the
 * regression verdict: the newest taker's θ below the previous taker's by more than z × the combined
 * standard error √(se₁² + se₂²).
 * @module
 */
import type { ExamTaker } from './exam-store.ts';
import { examInformation, fitIrt, type ItemParameters } from './irt.ts';
import type { Exam, ExamAnswer } from './types.ts';

/** One taker in the report. */
export interface TakerReport {
  taker: string;
  theta: number;
  se: number;
  accuracy: number;
  answered: number;
  unparsed: number;
  errors: number;
  byBloom: Record<string, { accuracy: number; n: number }>;
  byQuestionWord: Record<string, { accuracy: number; n: number }>;
  firstMs: number;
}

/** The whole report. */
export interface ExamReport {
  exam: string;
  version: number;
  questions: number;
  takers: TakerReport[];
  items: ItemParameters[];
  /** Mean item information on a θ grid (the paper's Eq. 4). */
  information: Array<{ theta: number; information: number }>;
  /** The newest taker against the one before it (absent with fewer than two takers). */
  regression?: { taker: string; previous: string; drop: number; combinedSe: number; z: number; regressed: boolean };
}

function rates(rows: Array<{ key: string; correct: boolean }>): Record<string, { accuracy: number; n: number }> {
  const out: Record<string, { accuracy: number; n: number }> = {};
  for (const r of rows) {
    const cell = (out[r.key] ??= { accuracy: 0, n: 0 });
    cell.accuracy = (cell.accuracy * cell.n + (r.correct ? 1 : 0)) / (cell.n + 1);
    cell.n++;
  }
  return out;
}

/**
 * The report of an exam version's answers; undefined when no answer was graded yet. The fit uses weak
 * priors (MAP): with the few takers of a release history, plain maximum likelihood overfits the items
 * and flags half of the releases that did not change (scripts/exam-simulation.ts, docs/exams.md).
 * `z`: a regression is a drop of more than z × the combined standard error. Default 1.96.
 */
export function examReport(exam: Exam, answers: readonly ExamAnswer[], takers: readonly ExamTaker[], z = 1.96): ExamReport | undefined {
  const graded = answers.filter((a) => a.outcome === 'correct' || a.outcome === 'wrong');
  if (graded.length === 0) return undefined;
  const fit = fitIrt(
    graded.map((a) => ({ taker: a.taker, question: a.question, correct: a.outcome === 'correct' ? 1 : 0 })),
    { priors: true },
  );
  const items = new Map(exam.items.map((i) => [i.id, i]));
  const order = new Map(takers.map((t) => [t.taker, t.firstMs]));
  const reports = fit.takers
    .map((t): TakerReport => {
      const mine = answers.filter((a) => a.taker === t.taker);
      const g = mine.filter((a) => a.outcome === 'correct' || a.outcome === 'wrong');
      return {
        taker: t.taker,
        theta: t.theta,
        se: t.se,
        accuracy: t.accuracy,
        answered: t.n,
        unparsed: mine.filter((a) => a.outcome === 'unparsed').length,
        errors: mine.filter((a) => a.outcome === 'error').length,
        byBloom: rates(g.flatMap((a) => (items.get(a.question)?.bloom ?? []).map((key) => ({ key, correct: a.outcome === 'correct' })))),
        byQuestionWord: rates(g.map((a) => ({ key: items.get(a.question)?.questionWord ?? 'other', correct: a.outcome === 'correct' }))),
        firstMs: order.get(t.taker) ?? 0,
      };
    })
    .sort((a, b) => a.firstMs - b.firstMs || a.taker.localeCompare(b.taker));
  const information = Array.from({ length: 25 }, (_, i) => -3 + i * 0.25).map((theta) => ({ theta, information: examInformation(theta, fit.questions) }));
  const report: ExamReport = { exam: exam.exam, version: exam.version, questions: exam.items.length, takers: reports, items: fit.questions, information };
  if (reports.length >= 2) {
    const [previous, latest] = reports.slice(-2) as [TakerReport, TakerReport];
    const combinedSe = Math.sqrt(previous.se ** 2 + latest.se ** 2);
    const drop = previous.theta - latest.theta;
    report.regression = { taker: latest.taker, previous: previous.taker, drop, combinedSe, z, regressed: drop > z * combinedSe };
  }
  return report;
}

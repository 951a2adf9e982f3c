/**
 * The exam series of the long-running roles (`ragwatch start`, `ragwatch prober`): every
 * `exams.refreshIntervalMs` the answers of each exam of `exams.files` (at its version) are read from the
 * store and, when they changed, the report is refitted on a worker thread. Exported per exam and taker
 * (the newest `exams.maxTakers`): θ, its standard error, accuracy, unparsed answers, and the regression
 * of the newest taker against the one before (alert RagwatchExamRegression).
 * @module
 */
import { Gauge, type Registry } from 'prom-client';
import { errorMessage } from '../errors.ts';
import { silentLogger, type Logger } from '../log.ts';
import type { ExamStore } from './exam-store.ts';
import { runWorkerOnce, siblingScript } from '../threads.ts';
import type { ExamReport } from './report.ts';
import type { Exam } from './types.ts';

const WORKER_URL = siblingScript(import.meta.url, 'report-worker');

/** Options of {@link ExamMonitor}. */
export interface ExamMonitorOptions {
  exams: readonly Exam[];
  store: ExamStore;
  registry: Registry;
  refreshIntervalMs: number;
  maxTakers: number;
  /** A regression is a drop of more than z × the combined standard error. */
  regressionZ: number;
  logger?: Logger;
}

export class ExamMonitor {
  readonly #o: ExamMonitorOptions;
  readonly #reports = new Map<string, { key: string; report: ExamReport }>();
  #timer: NodeJS.Timeout | undefined;
  #busy: Promise<void> | undefined;

  constructor(options: ExamMonitorOptions) {
    this.#o = options;
    const registers = [options.registry];
    const takers = () => [...this.#reports.values()].flatMap(({ report }) => report.takers.slice(-options.maxTakers).map((t) => ({ exam: report.exam, t })));
    const perTaker = (name: string, help: string, value: (t: ExamReport['takers'][number]) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['exam', 'taker'],
        registers,
        collect() {
          this.reset();
          for (const { exam, t } of takers()) if (Number.isFinite(value(t))) this.set({ exam, taker: t.taker }, value(t));
        },
      });
    perTaker('ragwatch_exam_theta', 'IRT ability θ of each exam-taker (release) on the exam, in [−3, 3] (docs/exams.md).', (t) => t.theta);
    perTaker('ragwatch_exam_theta_se', 'Standard error of ragwatch_exam_theta (1/√ test information at θ).', (t) => t.se);
    perTaker('ragwatch_exam_accuracy_ratio', 'Share of the graded exam answers that were correct, per exam-taker.', (t) => t.accuracy);
    perTaker('ragwatch_exam_unparsed_answers', 'Exam answers from which no option could be read (not graded), per exam-taker.', (t) => t.unparsed);
    const reports = () => [...this.#reports.values()].map((r) => r.report);
    new Gauge({
      name: 'ragwatch_exam_regression',
      help: 'Per exam: 1 when the newest taker\'s θ is below the previous taker\'s by more than exams.regressionZ × their combined standard error, else 0 (absent with fewer than two takers).',
      labelNames: ['exam', 'taker', 'previous'],
      registers,
      collect() {
        this.reset();
        for (const r of reports()) if (r.regression) this.set({ exam: r.exam, taker: r.regression.taker, previous: r.regression.previous }, r.regression.regressed ? 1 : 0);
      },
    });
  }

  /** The latest report of an exam. */
  report(exam: string): ExamReport | undefined {
    return this.#reports.get(exam)?.report;
  }

  /** Every exam's latest report. */
  reports(): ExamReport[] {
    return [...this.#reports.values()].map((r) => r.report);
  }

  /** Re-reads the store and refits the exams whose answers changed. */
  refresh(): Promise<void> {
    this.#busy ??= this.#refresh().finally(() => (this.#busy = undefined));
    return this.#busy;
  }

  async #refresh(): Promise<void> {
    for (const exam of this.#o.exams) {
      try {
        const answers = this.#o.store.answers(exam.exam, exam.version);
        const takers = this.#o.store.takers(exam.exam, exam.version);
        const key = `${answers.length}:${Math.max(0, ...takers.map((t) => t.lastMs))}`;
        if (answers.length === 0 || this.#reports.get(exam.exam)?.key === key) continue;
        const report = await runWorkerOnce<ExamReport | null>(WORKER_URL, { exam, answers, takers, z: this.#o.regressionZ });
        if (report) this.#reports.set(exam.exam, { key, report });
      } catch (err) {
        (this.#o.logger ?? silentLogger).warn({ exam: exam.exam, err: errorMessage(err) }, 'exam report failed; the previous one stays');
      }
    }
  }

  /** Starts the periodic refresh (unref'd; a first one at once). Idempotent. */
  start(): void {
    if (this.#timer) return;
    void this.refresh();
    this.#timer = setInterval(() => void this.refresh(), this.#o.refreshIntervalMs);
    this.#timer.unref();
  }

  /** Stops the refresh. Idempotent. */
  async shutdown(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#busy;
  }
}

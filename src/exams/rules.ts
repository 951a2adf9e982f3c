/**
 * The Prometheus alerting rule of the exams, the same for every deployment (the regression verdict is
 * a series the exam monitor exports).
 * @module
 */
import type { RuleGroup } from '../metrics/rules.ts';

/** The exam alert: the newest release's IRT ability is below the previous one's by more than the combined error (docs/exams.md). */
export function examRuleGroup(interval: string, examplesUrl: string): RuleGroup {
  return {
    name: 'ragwatch-exam-alerts',
    interval,
    rules: [
      {
        alert: 'RagwatchExamRegression',
        expr: 'max by (exam, taker, previous) (ragwatch_exam_regression) == 1',
        labels: { severity: 'ticket' },
        annotations: {
          summary: 'release {{ $labels.taker }} is less able than {{ $labels.previous }} on exam {{ $labels.exam }}',
          description: 'The IRT ability θ of {{ $labels.taker }} on exam {{ $labels.exam }} is below that of {{ $labels.previous }} by more than their combined standard error (ragwatch_exam_theta, ragwatch_exam_theta_se). `ragwatch exam report --exam …` shows which Bloom categories and question words it lost.',
          report: `${examplesUrl}/exams`,
        },
      },
    ],
  };
}

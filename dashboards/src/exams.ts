/**
 * The "Exams (per release)" row of the RAG quality dashboard (docs/exams.md): each release's IRT
 * ability θ on each exam with its 95 % interval, accuracy, and the regression verdict of the newest
 * release.
 * @module
 */
import { BigValueColorMode, BigValueGraphMode, ReduceDataOptionsBuilder } from '@grafana/grafana-foundation-sdk/common';
import { MappingType, RowBuilder, ThresholdsConfigBuilder, ThresholdsMode, type DashboardBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import { PromQueryFormat } from '@grafana/grafana-foundation-sdk/prometheus';
import * as stat from '@grafana/grafana-foundation-sdk/stat';
import * as table from '@grafana/grafana-foundation-sdk/table';
import { promInstant } from './common.ts';

/** Adds the Exams row. */
export function withExamsRow(dashboard: DashboardBuilder): DashboardBuilder {
  return dashboard
    .withRow(new RowBuilder('Exams (per release)'))
    .withPanel(
      new table.PanelBuilder()
        .title('Ability θ per release')
        .description('IRT ability (3PL) of each release on each exam, with its 95 % interval (θ ± 1.96 se) and accuracy; releases that took the same exam version are comparable. `ragwatch exam report` has the details.')
        .height(8)
        .span(16)
        .decimals(2)
        .withTarget(promInstant('max by (exam, taker) (ragwatch_exam_theta)', undefined, 'theta').format(PromQueryFormat.Table))
        .withTarget(promInstant('max by (exam, taker) (ragwatch_exam_theta - 1.96 * ragwatch_exam_theta_se)', undefined, 'low').format(PromQueryFormat.Table))
        .withTarget(promInstant('max by (exam, taker) (ragwatch_exam_theta + 1.96 * ragwatch_exam_theta_se)', undefined, 'high').format(PromQueryFormat.Table))
        .withTarget(promInstant('max by (exam, taker) (ragwatch_exam_accuracy_ratio)', undefined, 'accuracy').format(PromQueryFormat.Table))
        .withTransformation({ id: 'merge', options: {} })
        .withTransformation({ id: 'organize', options: { excludeByName: { Time: true }, renameByName: { taker: 'release', 'Value #theta': 'θ', 'Value #low': '95 % low', 'Value #high': '95 % high', 'Value #accuracy': 'accuracy' } } }),
    )
    .withPanel(
      new stat.PanelBuilder()
        .title('Newest release regressed?')
        .description('RagwatchExamRegression: the newest release\'s θ is below the previous one\'s by more than their combined standard error.')
        .height(8)
        .span(8)
        .colorMode(BigValueColorMode.Background)
        .graphMode(BigValueGraphMode.None)
        .reduceOptions(new ReduceDataOptionsBuilder().calcs(['lastNotNull']))
        .mappings([{ type: MappingType.ValueToText as const, options: { '0': { text: 'no', color: 'green', index: 0 }, '1': { text: 'REGRESSED', color: 'red', index: 1 } } }])
        .thresholds(new ThresholdsConfigBuilder().mode(ThresholdsMode.Absolute).steps([{ value: null, color: 'green' }, { value: 1, color: 'red' }]))
        .withTarget(promInstant('max by (exam, taker, previous) (ragwatch_exam_regression)', '{{exam}}: {{taker}} vs {{previous}}', 'A')),
    );
}

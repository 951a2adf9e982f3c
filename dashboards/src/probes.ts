/**
 * The "Probes (ground truth)" row of the RAG quality dashboard: what the scheduled probes know for
 * certain (accuracy and robustness R of the last run against each suite's minimum, gap / robust /
 * non-robust groups, failures by module, staleness, alerts) and how well each judge metric detects the
 * wrong probe answers (the live judge audit).
 * @module
 */
import { BigValueColorMode, BigValueGraphMode, ReduceDataOptionsBuilder, StackingConfigBuilder, StackingMode, VizOrientation } from '@grafana/grafana-foundation-sdk/common';
import { MappingType, RowBuilder, ThresholdsConfigBuilder, ThresholdsMode, type DashboardBuilder, type ValueMapping } from '@grafana/grafana-foundation-sdk/dashboard';
import * as stat from '@grafana/grafana-foundation-sdk/stat';
import * as timeseries from '@grafana/grafana-foundation-sdk/timeseries';
import { lowerIsBetter, prom, promInstant } from './common.ts';

const FIRING: ValueMapping[] = [
  { type: MappingType.ValueToText as const, options: { '0': { text: 'ok', color: 'green', index: 0 }, '1': { text: 'FIRING', color: 'red', index: 1 } } },
];

function ratioStat(title: string, description: string, metric: string, minimum: string): stat.PanelBuilder {
  return new stat.PanelBuilder()
    .title(title)
    .description(description)
    .height(5)
    .span(6)
    .unit('percentunit')
    .decimals(1)
    .colorMode(BigValueColorMode.Background)
    .graphMode(BigValueGraphMode.Area)
    .reduceOptions(new ReduceDataOptionsBuilder().calcs(['lastNotNull']))
    // Red, then green from the suite's own minimum: the threshold comes from the exported series (query B).
    .thresholds(new ThresholdsConfigBuilder().mode(ThresholdsMode.Absolute).steps([{ value: null, color: 'red' }]))
    .withTarget(promInstant(`max by (suite) (${metric})`, '{{suite}}', 'A'))
    .withTarget(promInstant(`min(${minimum})`, 'minimum', 'B'))
    .withTransformation({ id: 'configFromData', options: { configRefId: 'B', mappings: [{ fieldName: 'minimum', handlerKey: 'threshold1', handlerArguments: { threshold: { color: 'green' } } }] } });
}

/** Adds the Probes row to a dashboard. */
export function withProbesRow(dashboard: DashboardBuilder): DashboardBuilder {
  return dashboard
    .withRow(new RowBuilder('Probes (ground truth)'))
    .withPanel(ratioStat('Probe accuracy', 'Last completed run: correct / answered ground-truth questions, per suite. Green from the suite\'s alerts.minAccuracy. Not a judge: the answers are known.', 'ragwatch_probe_accuracy_ratio', 'ragwatch_probe_min_accuracy_ratio'))
    .withPanel(ratioStat('Probe robustness R', 'Last completed run: correct / (answered − questions no wording gets right), GRAMMAR eq. 1 — does the service answer what it knows in every wording? Green from alerts.minRobustness.', 'ragwatch_probe_robustness_ratio', 'ragwatch_probe_min_robustness_ratio'))
    .withPanel(
      new stat.PanelBuilder()
        .title('Since the last completed run')
        .description('Per suite. RagwatchProbeStale fires after 3 schedule periods without a completed run.')
        .height(5)
        .span(6)
        .unit('s')
        .colorMode(BigValueColorMode.Value)
        .graphMode(BigValueGraphMode.None)
        .reduceOptions(new ReduceDataOptionsBuilder().calcs(['lastNotNull']))
        .thresholds(lowerIsBetter(1800, 2700))
        .withTarget(promInstant('time() - max by (suite) (ragwatch_probe_last_run_timestamp_seconds)', '{{suite}}')),
    )
    .withPanel(
      new stat.PanelBuilder()
        .title('Probe alerts (ragwatch evaluator)')
        .description('ragwatch_probe_alert_active: accuracy or R below the suite minimum, too many unanswered probes, or no completed run for 3 periods.')
        .height(5)
        .span(6)
        .colorMode(BigValueColorMode.Background)
        .graphMode(BigValueGraphMode.None)
        .orientation(VizOrientation.Horizontal)
        .reduceOptions(new ReduceDataOptionsBuilder().calcs(['lastNotNull']))
        .mappings(FIRING)
        .withTarget(promInstant('max by (suite, alert) (ragwatch_probe_alert_active)', '{{suite}} {{alert}}')),
    )
    .withPanel(
      new timeseries.PanelBuilder()
        .title('Accuracy and robustness R per run')
        .description('Each completed run sets both; the dashed lines are the suites\' minimums.')
        .height(8)
        .span(12)
        .unit('percentunit')
        .min(0)
        .max(1)
        .withTarget(prom('max by (suite) (ragwatch_probe_accuracy_ratio)', '{{suite}} accuracy', 'A'))
        .withTarget(prom('max by (suite) (ragwatch_probe_robustness_ratio)', '{{suite}} R', 'B'))
        .withTarget(prom('min(ragwatch_probe_min_accuracy_ratio)', 'min accuracy', 'C'))
        .overrideByRegexp('^min ', [{ id: 'custom.lineStyle', value: { fill: 'dash', dash: [10, 10] } }]),
    )
    .withPanel(
      new timeseries.PanelBuilder()
        .title('Groups of the last run: gap / non-robust / robust')
        .description('A group is every wording of one question. gap: no wording answered right (the knowledge is missing); non_robust: some; robust: all.')
        .height(8)
        .span(6)
        .unit('short')
        .stacking(new StackingConfigBuilder().mode(StackingMode.Normal))
        .withTarget(prom('sum by (kind) (ragwatch_probe_groups)', '{{kind}}')),
    )
    .withPanel(
      new timeseries.PanelBuilder()
        .title('Wrong answers by failed module')
        .description('retrieval: the truth was not in the retrieved sources (nor a right sibling\'s source); generator: it was; unknown: sources not visible. Over $window.')
        .height(8)
        .span(6)
        .unit('short')
        .withTarget(prom('sum by (module) (increase(ragwatch_probe_failures_total[$window]))', '{{module}}')),
    )
    .withPanel(
      new timeseries.PanelBuilder()
        .title('Judge audit: does "below threshold" catch the wrong probe answers?')
        .description('Per metric and judge, on the last run: precision = wrong among the answers scored below the threshold; recall = wrong answers scored below it. A judge nobody checked is a guess: this is the check.')
        .height(8)
        .span(24)
        .unit('percentunit')
        .min(0)
        .max(1)
        .withTarget(prom('max by (metric, judge) (ragwatch_probe_judge_precision_ratio)', '{{metric}} ({{judge}}) precision', 'A'))
        .withTarget(prom('max by (metric, judge) (ragwatch_probe_judge_recall_ratio)', '{{metric}} ({{judge}}) recall', 'B')),
    );
}


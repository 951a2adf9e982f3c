/**
 * "Pipeline health" dashboard: every stage's throughput, every drop reason, the accounting
 * identity residuals (which must stay 0), judge requests, tokens and cost, queue depths and
 * Kafka lag.
 * @module
 */
import { RowBuilder, type DashboardBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import { StackingConfigBuilder, StackingMode } from '@grafana/grafana-foundation-sdk/common';
import * as timeseries from '@grafana/grafana-foundation-sdk/timeseries';
import { lowerIsBetter, prom, ragwatchDashboard } from './common.ts';

/** Pipeline stages after sampling: their drops count against `sampled` in the identity. */
export const POST_SAMPLING_DROP = 'stage!~"ingest|processor|capture|sampling"';

/** `sum(x)`, or 0 when x has no series yet (a counter with labels appears only after its first increment). */
function total(metric: string): string {
  return `(sum(${metric}) or vector(0))`;
}

/** captured − sampled − not_sampled: must be 0 at every scrape (modulo scrape skew while busy). */
export const CAPTURE_RESIDUAL = `${total('ragwatch_triplets_captured_total')} - ${total('ragwatch_triplets_sampled_total')} - ${total('ragwatch_triplets_not_sampled_total')}`;
/** Split assembly: spans forwarded − received by assemblers + handed over at rebalances and stops: the spans-topic backlog, 0 once it is read. */
export const SPANS_RESIDUAL = `${total('ragwatch_spans_forwarded_total')} - ${total('ragwatch_spans_received_total{source="kafka"}')} + ${total('ragwatch_spans_handed_over_total')}`;
/** sampled − scored − failed − dropped after sampling − in flight: 0 in one process; Kafka adds the topic backlog. */
export const SCORING_RESIDUAL = `${total('ragwatch_triplets_sampled_total')} - ${total('ragwatch_triplets_scored_total')} - ${total('ragwatch_triplets_failed_total')} - ${total(`ragwatch_dropped_total{${POST_SAMPLING_DROP}}`)} - ${total('ragwatch_triplets_in_flight')}`;

function rates(title: string, description: string, unit: string, targets: Array<[string, string]>, stacked = false): timeseries.PanelBuilder {
  const panel = new timeseries.PanelBuilder().title(title).description(description).height(8).span(12).unit(unit);
  if (stacked) panel.stacking(new StackingConfigBuilder().mode(StackingMode.Normal)).fillOpacity(30);
  for (const [expr, legend] of targets) panel.withTarget(prom(expr, legend));
  return panel;
}

/** Builds the "Pipeline health" dashboard. */
export function pipelineDashboard(): DashboardBuilder {
  const r = (m: string, by = '') => `sum${by ? ` by (${by})` : ''} (rate(${m}[$__rate_interval]))`;
  return ragwatchDashboard({
    uid: 'ragwatch-pipeline',
    title: 'ragwatch / Pipeline health',
    description: 'ragwatch itself: capture → sampling → transport → judges, drops by reason, accounting identity, judge usage, queues and Kafka lag.',
  })
    .withRow(new RowBuilder('Flow'))
    .withPanel(
      rates('Triplets per second by stage', 'Captured → sampled / not sampled → scored / failed.', 'ops', [
        [r('ragwatch_triplets_captured_total'), 'captured'],
        [r('ragwatch_triplets_sampled_total'), 'sampled'],
        [r('ragwatch_triplets_not_sampled_total'), 'not sampled'],
        [r('ragwatch_triplets_scored_total'), 'scored'],
        [`${r('ragwatch_triplets_failed_total')} or vector(0)`, 'failed'],
      ]),
    )
    .withPanel(
      rates('Spans received and generations seen', 'Input of the capture stage, by source and convention; incomplete generations by the first missing field.', 'ops', [
        [r('ragwatch_spans_received_total', 'source'), 'spans {{source}}'],
        [r('ragwatch_triplets_captured_total', 'convention'), 'captured {{convention}}'],
        [`${r('ragwatch_triplets_incomplete_total', 'missing')} or vector(0)`, 'incomplete {{missing}}'],
      ]),
    )
    .withPanel(
      rates('Dropped by stage and reason', 'Every bounded buffer drops the newest item when full and counts it here. 0 when nothing was dropped.', 'ops', [
        [`${r('ragwatch_dropped_total', 'stage, reason')} or vector(0)`, '{{stage}} {{reason}}'],
      ], true),
    )
    .withPanel(
      rates('Failed by reason', 'Sampled triplets whose scoring failed (sent to the DLQ in Kafka mode). 0 when none failed.', 'ops', [
        [`${r('ragwatch_triplets_failed_total', 'reason')} or vector(0)`, '{{reason}}'],
        [`${r('ragwatch_scores_skipped_total', 'metric, reason')} or vector(0)`, 'skipped {{metric}} {{reason}}'],
      ], true),
    )
    .withPanel(
      new timeseries.PanelBuilder()
        .title('Accounting identity residuals (must be 0)')
        .description('captured − sampled − not_sampled, and sampled − scored − failed − dropped after sampling − in flight. Non-zero for more than a scrape means something is lost silently (a bug). In Kafka mode the second also includes the topic backlog (see consumer lag); in split assembly the third, spans forwarded by collectors − received by assemblers + handed over, is the spans-topic backlog and returns to 0 once the assembler lag does (an assembler killed mid-stream takes its counts with it: a negative step).')
        .height(8)
        .span(24)
        .unit('short')
        .thresholds(lowerIsBetter(1, 10))
        .withTarget(prom(CAPTURE_RESIDUAL, 'captured − sampled − not sampled'))
        .withTarget(prom(SCORING_RESIDUAL, 'sampled − scored − failed − dropped − in flight'))
        .withTarget(prom(SPANS_RESIDUAL, 'spans forwarded − received + handed over (split assembly)')),
    )
    .withRow(new RowBuilder('Judges'))
    .withPanel(
      rates('Judge requests by outcome', 'HTTP requests to the LLM judge endpoint (ok, rate_limited, server_error, timeout, ...). LLM judge only.', 'reqps', [
        [r('ragwatch_judge_requests_total', 'outcome'), '{{outcome}}'],
      ], true),
    )
    .withPanel(
      rates('Judge tokens per second', 'Tokens used by LLM judge calls, by type. LLM judge only.', 'short', [
        [r('ragwatch_judge_tokens_total', 'type'), '{{type}}'],
      ]),
    )
    .withPanel(
      new timeseries.PanelBuilder()
        .title('Judge cost per hour')
        .description('Estimated from the configured price table (judge.llm.prices), in its currency. LLM judge only.')
        .height(8)
        .span(12)
        .unit('currencyUSD')
        .withTarget(prom('sum by (model) (rate(ragwatch_judge_cost_total[$__rate_interval])) * 3600', '{{model}}')),
    )
    .withPanel(
      rates('Judge latency p50 / p95 per triplet', 'Time to score one triplet, by judge kind.', 's', [
        ['histogram_quantile(0.5, sum by (le, judge) (rate(ragwatch_judge_duration_seconds_bucket[$__rate_interval])))', 'p50 {{judge}}'],
        ['histogram_quantile(0.95, sum by (le, judge) (rate(ragwatch_judge_duration_seconds_bucket[$__rate_interval])))', 'p95 {{judge}}'],
      ]),
    )
    .withRow(new RowBuilder('Queues and Kafka'))
    .withPanel(
      new timeseries.PanelBuilder()
        .title('Queue depth / capacity')
        .description('Items waiting in each bounded queue as a share of its capacity; at 100% new items are dropped (counted).')
        .height(8)
        .span(12)
        .unit('percentunit')
        .min(0)
        .max(1)
        .thresholds(lowerIsBetter(0.7, 0.9))
        .withTarget(prom('sum by (stage) (ragwatch_queue_size) / sum by (stage) (ragwatch_queue_capacity)', '{{stage}}')),
    )
    .withPanel(
      rates('In flight', 'Sampled triplets queued or being scored, per process.', 'short', [
        ['sum(ragwatch_triplets_in_flight)', 'in flight'],
        ['sum by (stage) (ragwatch_queue_size)', 'queued {{stage}}'],
      ]),
    )
    .withPanel(
      rates('Kafka consumer lag (scorer)', 'Messages of the triplets topic not yet consumed by the scorer group, by partition. Kafka mode only.', 'short', [
        ['sum by (topic, partition) (ragwatch_kafka_consumer_lag_messages)', '{{topic}}/{{partition}}'],
      ]),
    )
    .withPanel(
      rates('Kafka produce errors and paused partitions', 'Failed send attempts (retried) by topic, and partitions the scorer paused for judge back-pressure. Kafka mode only.', 'short', [
        ['sum by (topic) (rate(ragwatch_kafka_produce_errors_total[$__rate_interval])) or vector(0)', 'produce errors {{topic}}'],
        ['sum(ragwatch_kafka_partitions_paused)', 'paused partitions'],
      ]),
    )
    .withPanel(
      rates(
        'Split assembly: spans topic lag (assembler)',
        'Span records of the spans topic not yet read by the assembler group, by partition. A growing lag delays every triplet; add assemblers (up to the partition count). Split mode only.',
        'short',
        [['sum by (partition) (ragwatch_assembler_lag_messages)', 'partition {{partition}}']],
      ),
    )
    .withPanel(
      rates(
        'Split assembly: spans forwarded, received, dropped, late, handed over',
        'Span records acknowledged on the spans topic by the collectors, received by the assemblers, dropped on the way (by stage and reason), spans that arrived after their trace was assembled, and spans handed over unassembled at a group rebalance or a graceful stop (received again from the committed offset). forwarded = received − handed over + backlog. Split mode only.',
        'ops',
        [
          ['sum(rate(ragwatch_spans_forwarded_total[$__rate_interval]))', 'forwarded (collectors)'],
          ['sum(rate(ragwatch_spans_received_total{source="kafka"}[$__rate_interval]))', 'received (assemblers)'],
          ['sum by (stage, reason) (rate(ragwatch_dropped_total{stage=~"span_transport|assembler"}[$__rate_interval])) or vector(0)', 'dropped {{stage}} {{reason}}'],
          ['sum(rate(ragwatch_late_spans_total[$__rate_interval]))', 'late spans'],
          ['sum(rate(ragwatch_spans_handed_over_total[$__rate_interval])) or vector(0)', 'handed over (rebalance, stop)'],
        ],
      ),
    )
    .withPanel(
      rates('Kafka producer buffer (collector)', 'Triplets buffered by the collector\'s producer while brokers are slow or down. Kafka mode only.', 'short', [
        ['sum by (topic) (ragwatch_kafka_producer_buffer_messages)', 'buffered {{topic}}'],
      ]),
    );
}

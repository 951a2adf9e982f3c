/**
 * "Latency" dashboard: time to first token, time per output token and response duration
 * quantiles by service and model, throughput, and output tokens — for every captured
 * generation, sampled or not.
 * @module
 */
import { RowBuilder, type DashboardBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import * as timeseries from '@grafana/grafana-foundation-sdk/timeseries';
import { ROUTE, SERVICE, prom, ragwatchDashboard } from './common.ts';

/** Series filter of every latency panel (route: `.*` = All also matches series without a route label). */
const FILTER = `${SERVICE}, ${ROUTE}`;

const QUANTILES = [0.5, 0.95, 0.99] as const;

/** A quantile of a latency histogram, by service and model. */
export function latencyQuantile(metric: string, q: number): string {
  return `histogram_quantile(${q}, sum by (le, service, model) (rate(${metric}_bucket{${FILTER}}[$__rate_interval])))`;
}

function quantilePanel(title: string, metric: string, description: string): timeseries.PanelBuilder {
  const panel = new timeseries.PanelBuilder().title(title).description(description).height(9).span(12).unit('s');
  for (const q of QUANTILES) panel.withTarget(prom(latencyQuantile(metric, q), `p${Math.round(q * 100)} {{service}} {{model}}`));
  return panel;
}

/** Builds the "Latency" dashboard. */
export function latencyDashboard(): DashboardBuilder {
  return ragwatchDashboard({
    uid: 'ragwatch-latency',
    title: 'ragwatch / Latency',
    description: 'Generation latency of the RAG service from its traces: TTFT, TPOT and duration quantiles by service and model.',
  })
    .withRow(new RowBuilder('Generation latency'))
    .withPanel(quantilePanel('Time to first token p50 / p95 / p99', 'ragwatch_time_to_first_token_seconds', 'From gen_ai.response.time_to_first_chunk, ai.response.msToFirstChunk or first-chunk span events.'))
    .withPanel(quantilePanel('Time per output token p50 / p95 / p99', 'ragwatch_time_per_output_token_seconds', '(generation time − TTFT) / (output tokens − 1), when both are known.'))
    .withPanel(quantilePanel('Response duration p50 / p95 / p99', 'ragwatch_response_duration_seconds', 'Duration of the generation (LLM) span.'))
    .withPanel(
      new timeseries.PanelBuilder()
        .title('Generations per second')
        .description('Captured generations per second, by service and model.')
        .height(9)
        .span(12)
        .unit('reqps')
        .withTarget(prom(`sum by (service, model) (rate(ragwatch_response_duration_seconds_count{${FILTER}}[$__rate_interval]))`, '{{service}} {{model}}')),
    )
    .withRow(new RowBuilder('Output tokens'))
    .withPanel(
      new timeseries.PanelBuilder()
        .title('Output tokens per second')
        .description('Output tokens of captured generations per second (from gen_ai.usage.output_tokens / llm.token_count.completion).')
        .height(9)
        .span(12)
        .unit('short')
        .withTarget(prom(`sum by (service, model) (rate(ragwatch_output_tokens_sum{${FILTER}}[$__rate_interval]))`, '{{service}} {{model}}')),
    )
    .withPanel(
      new timeseries.PanelBuilder()
        .title('Mean output tokens per generation')
        .description('Mean output tokens per captured generation.')
        .height(9)
        .span(12)
        .unit('short')
        .withTarget(
          prom(
            `sum by (service, model) (rate(ragwatch_output_tokens_sum{${FILTER}}[$__rate_interval])) / sum by (service, model) (rate(ragwatch_output_tokens_count{${FILTER}}[$__rate_interval]))`,
            '{{service}} {{model}}',
          ),
        ),
    );
}

/**
 * The "Risk and safety" row of the RAG quality dashboard (HCAT §4, docs/judges.md): personal data the
 * answers disclosed, per type (never a value), the weighted number of toxic answers (LLM judge), and
 * what was skipped instead of scored — the embedded judge cannot classify toxicity, and says so.
 * @module
 */
import { RowBuilder, type DashboardBuilder } from '@grafana/grafana-foundation-sdk/dashboard';
import * as timeseries from '@grafana/grafana-foundation-sdk/timeseries';
import { JUDGE, SERVICE, prom } from './common.ts';

const NON_TOXIC = `metric="non_toxic", ${JUDGE}, ${SERVICE}`;

/** Adds the row. */
export function withSafetyRow(dashboard: DashboardBuilder): DashboardBuilder {
  return dashboard
    .withRow(new RowBuilder('Risk and safety'))
    .withPanel(
      new timeseries.PanelBuilder()
        .title('Personal data disclosed, per type')
        .description('Personal data in scored answers over $window, per entity type (ragwatch_response_pii_total; judge.pii): counted from the redaction placeholders, never the values. pii_free pages when more than 1 % of the answers disclose any.')
        .height(8)
        .span(8)
        .unit('short')
        .withTarget(prom('sum by (type) (increase(ragwatch_response_pii_total[$window]))', '{{type}}')),
    )
    .withPanel(
      new timeseries.PanelBuilder()
        .title('Toxic answers (LLM judge, weighted)')
        .description('Answers the LLM judge found toxic over $window, weighted by 1/p (count − sum of the non_toxic histogram, which holds 0 for a toxic answer and 1 otherwise). The rubric is in docs/judges.md; the embedded judge skips non_toxic.')
        .height(8)
        .span(8)
        .unit('short')
        .withTarget(prom(`sum by (service) (increase(ragwatch_score_ratio_count{${NON_TOXIC}}[$window])) - sum by (service) (increase(ragwatch_score_ratio_sum{${NON_TOXIC}}[$window]))`, '{{service}}')),
    )
    .withPanel(
      new timeseries.PanelBuilder()
        .title('Metrics skipped, by reason')
        .description('Metrics not computed for a scored answer over $window (ragwatch_scores_skipped_total): never reported as a score. non_toxic / no_toxicity_model means the embedded judge scored these answers and no toxicity verdict exists for them.')
        .height(8)
        .span(8)
        .unit('short')
        .withTarget(prom('sum by (metric, reason) (increase(ragwatch_scores_skipped_total[$window]))', '{{metric}}: {{reason}}')),
    );
}

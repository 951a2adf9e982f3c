/**
 * The ragwatch configuration schema: one zod object per section (`sections/*.ts`).
 * `config/ragwatch.yaml` documents every key with its default; `docs/configuration.md`
 * describes the environment overrides.
 * @module
 */
import { z } from 'zod';
import { alertsSection } from './sections/alerts.ts';
import { calibrationSection } from './sections/calibration.ts';
import { captureSection } from './sections/capture.ts';
import { judgeSection } from './sections/judge.ts';
import { logSection } from './sections/log.ts';
import { metricsSection } from './sections/metrics.ts';
import { probesSection } from './sections/probes.ts';
import { redactionSection } from './sections/redaction.ts';
import { samplingSection } from './sections/sampling.ts';
import { serverSection } from './sections/server.ts';
import { storeSection } from './sections/store.ts';
import { transportSection } from './sections/transport.ts';
import { weaknessSection } from './sections/weakness.ts';
import { examsSection } from './sections/exams.ts';
import { evaluatorsSection } from './sections/evaluators.ts';
import { BUILTIN_REGISTRY } from '../metric-registry.ts';
import { ingestSection } from './sections/ingest.ts';
import { historySection } from './sections/history.ts';
import { evaluationExportSection } from './sections/evaluation-export.ts';
import { feedbackSection } from './sections/feedback.ts';
import { trailSection } from './sections/trail.ts';
import { MAX_SAMPLING_ATTRIBUTES, samplingAttributeKeys } from './sampling-attributes.ts';

export const configSchema = z
  .object({
    server: serverSection.prefault({}),
    capture: captureSection.prefault({}),
    redaction: redactionSection.prefault({}),
    sampling: samplingSection.prefault({}),
    transport: transportSection.prefault({}),
    ingest: ingestSection.prefault({}),
    judge: judgeSection.prefault({}),
    metrics: metricsSection.prefault({}),
    alerts: alertsSection.prefault({}),
    probes: probesSection.prefault({}),
    calibration: calibrationSection.prefault({}),
    store: storeSection.prefault({}),
    weakness: weaknessSection.prefault({}),
    exams: examsSection.prefault({}),
    history: historySection.prefault({}),
    evaluationExport: evaluationExportSection.prefault({}),
    evaluators: evaluatorsSection,
    feedback: feedbackSection.prefault({}),
    trail: trailSection.prefault({}),
    log: logSection.prefault({}),
  })
  .strict()
  .superRefine((c, ctx) => {
    // alerts.metrics names built-in metrics; an evaluator's alert settings live in the evaluator.
    const evaluators = new Map(c.evaluators.map((e, i) => [e.name, i]));
    for (const name of Object.keys(c.alerts.metrics)) {
      if (BUILTIN_REGISTRY.has(name)) continue;
      const i = evaluators.get(name);
      const message = i !== undefined ? `"${name}" is an evaluator: set its alert settings in evaluators.${i}.alerts` : `unknown metric "${name}"; the built-in metrics are ${BUILTIN_REGISTRY.names().join(', ')}`;
      ctx.addIssue({ code: 'custom', path: ['alerts', 'metrics', name], message });
    }
    // Capture copies every attribute sampling reads onto every triplet: a bounded set.
    const read = samplingAttributeKeys(c).length;
    if (read > MAX_SAMPLING_ATTRIBUTES) {
      const message = `sampling reads ${read} attributes (the rules' attributes, strata.attribute and, with a negativeFeedback rule, feedback.spans.ratingAttributes and thumbsAttributes); at most ${MAX_SAMPLING_ATTRIBUTES}`;
      ctx.addIssue({ code: 'custom', path: ['sampling', 'rules'], message });
    }
  });

/** User-facing configuration (every key optional). */
export type RagwatchConfigInput = z.input<typeof configSchema>;
/** Configuration with every default filled in. */
export type RagwatchConfig = z.output<typeof configSchema>;

/**
 * Builds the evaluation export of a scoring process from `evaluationExport` (docs/evaluation-export.md):
 * the writers that are configured (OTLP, Phoenix, Langfuse), the labels from the metrics' alert
 * thresholds, and the redaction policy every other egress uses. Undefined when no writer is on.
 * @module
 */
import { createRequire } from 'node:module';
import type { Registry } from 'prom-client';
import { createRedactor, redactionForPipeline } from '../capture/redaction/redact-outcome.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import { metricRegistryOf, type MetricRegistry } from '../metric-registry.ts';
import { silentLogger, type Logger } from '../log.ts';
import { SCORER_METRICS, type JudgeKind } from '../triplet.ts';
import { ExportInstruments, type ExportSettled } from './batch-writer.ts';
import { EvaluationExportSink } from './export-sink.ts';
import { createLangfuseWriter } from './langfuse-writer.ts';
import { createOtlpWriter } from './otlp-writer.ts';
import { createPhoenixWriter } from './phoenix-writer.ts';
import type { EvaluationWriter } from './types.ts';

/** Options of {@link createEvaluationExport}. */
export interface EvaluationExportOptions {
  registry: Registry;
  logger?: Logger;
  /** Told how each writer's results settled (sent, failed, dropped): the answer page's trail. */
  onSettled?: ExportSettled;
  /** A label of a metric's score that wins over the registry's ({@link registryLabels}); undefined: the registry's. */
  labelOf?: (metric: string, score: number) => string | undefined;
}

/** Logs a writer's failures at most once a minute each. */
function rateLimited(logger: Logger, writer: string): (error: string) => void {
  let lastMs = 0;
  let since = 0;
  return (error) => {
    since++;
    const now = Date.now();
    if (now - lastMs < 60_000) return;
    logger.warn({ writer, error, failedBatches: since }, 'evaluation export: results given up (see ragwatch_evaluation_export_dropped_total)');
    lastMs = now;
    since = 0;
  };
}

/** ragwatch's own version (the records' `service.version` and scope version). */
function ownVersion(): string {
  try {
    return (createRequire(import.meta.url)('../../package.json') as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/**
 * The pass / fail label of a score from the metric's alert threshold: `fail` at or below it (the answers
 * the change alerts and slices flag), `pass` above. A metric alerting `on: calibrated` has a threshold on
 * another scale and no label.
 */
export function thresholdLabels(alerts: RagwatchConfig['alerts']): (metric: string, score: number) => string | undefined {
  const cuts = new Map(Object.entries(alerts.metrics).flatMap(([m, a]) => (a && a.on === 'raw' ? [[m, a.threshold] as const] : [])));
  return (metric, score) => {
    const cut = cuts.get(metric);
    return cut === undefined ? undefined : score <= cut ? 'fail' : 'pass';
  };
}

/**
 * The label of a score by its metric's definition: a categorical metric's own label for the value, a
 * boolean metric's pass (1) / fail (0), otherwise pass / fail from the alert threshold ({@link thresholdLabels}).
 */
export function registryLabels(registry: MetricRegistry, alerts: RagwatchConfig['alerts']): (metric: string, score: number) => string | undefined {
  const byThreshold = thresholdLabels(alerts);
  return (metric, score) => {
    const d = registry.get(metric);
    if (d?.kind === 'categorical') return d.labels?.find((l) => l.value === score)?.label;
    if (d?.kind === 'boolean' && (score === 0 || score === 1)) return score === 1 ? 'pass' : 'fail';
    return byThreshold(metric, score);
  };
}

/** Whether a score is at or below its metric's alert threshold (`alerts.metrics`, else the registry's default; none: never failing). */
export function failingByThreshold(registry: MetricRegistry, alerts: RagwatchConfig['alerts']): (metric: string, score: number) => boolean {
  const configured = alerts.metrics as Readonly<Record<string, { threshold: number; on: string } | undefined>>;
  return (metric, score) => {
    const a = configured[metric];
    const cut = a ? (a.on === 'raw' ? a.threshold : undefined) : registry.get(metric)?.alertDefaults.threshold;
    return cut !== undefined && score <= cut;
  };
}

/**
 * The metrics a judge kind scores itself: the registry's metrics of that judge but the scorer's own
 * (`pii_free`) and the `check` evaluators, which do not depend on the judge. A failed judge gets an
 * `error.type` result for each of these.
 */
export function judgedMetrics(registry: MetricRegistry): (judge: JudgeKind) => readonly string[] {
  const byJudge = new Map<JudgeKind, readonly string[]>();
  return (judge) => {
    let names = byJudge.get(judge);
    if (!names) byJudge.set(judge, (names = registry.forJudge(judge).filter((d) => d.source !== 'check_evaluator' && !(SCORER_METRICS as readonly string[]).includes(d.name)).map((d) => d.name)));
    return names;
  };
}

/** The answer page of a trace from `evaluationExport.answerUrlTemplate` (the trace id URL-encoded into `{traceId}`). */
export function answerUrlOf(template: string): (traceId: string) => string {
  return (traceId) => template.replaceAll('{traceId}', encodeURIComponent(traceId));
}

/** The sink of the configured writers, or undefined when none is. */
export function createEvaluationExport(config: RagwatchConfig, options: EvaluationExportOptions): EvaluationExportSink | undefined {
  const e = config.evaluationExport;
  const logger = options.logger ?? silentLogger;
  const grace = config.server.shutdownGraceMs;
  let instruments: ExportInstruments | undefined;
  const shared = () => {
    if (!instruments) {
      instruments = new ExportInstruments(options.registry);
      instruments.onSettled = options.onSettled;
    }
    return instruments;
  };
  const onFirstDrop = (writer: string) => logger.warn({ writer }, 'evaluation export queue full: newest results dropped (counted in ragwatch_evaluation_export_dropped_total{reason="queue_full"}); is the receiver up?');
  const writers: EvaluationWriter[] = [];
  const { endpoint } = e.otlp;
  if (endpoint !== undefined && e.otlp.enabled !== false) {
    writers.push(createOtlpWriter({ config: { ...e.otlp, endpoint }, instruments: shared(), identity: { serviceName: e.otlp.serviceName, version: ownVersion() }, shutdownGraceMs: grace, onFirstDrop, onFailure: rateLimited(logger, 'otlp') }));
    logger.info({ endpoint, protocol: e.otlp.protocol, select: e.select }, 'evaluation export: gen_ai.evaluation.result log records over OTLP');
  }
  const phoenix = e.phoenix.endpoint;
  if (phoenix !== undefined) {
    writers.push(createPhoenixWriter({ config: { ...e.phoenix, endpoint: phoenix }, instruments: shared(), shutdownGraceMs: grace, onFirstDrop, onFailure: rateLimited(logger, 'phoenix') }));
    logger.info({ endpoint: phoenix }, 'evaluation export: Phoenix span annotations');
  }
  const l = e.langfuse;
  if (l.baseUrl !== undefined && l.publicKey !== undefined && l.secretKey !== undefined) {
    writers.push(createLangfuseWriter({ config: { ...l, baseUrl: l.baseUrl, publicKey: l.publicKey, secretKey: l.secretKey }, instruments: shared(), shutdownGraceMs: grace, onFirstDrop, onFailure: rateLimited(logger, 'langfuse') }));
    logger.info({ baseUrl: l.baseUrl }, 'evaluation export: Langfuse scores');
  }
  if (writers.length === 0) return undefined;
  const redactor = createRedactor(redactionForPipeline(config));
  const registry = metricRegistryOf(config);
  const labels = registryLabels(registry, config.alerts);
  const labelOf = options.labelOf ? (m: string, s: number) => options.labelOf!(m, s) ?? labels(m, s) : labels;
  return new EvaluationExportSink({
    writers,
    select: e.select,
    includeProbes: e.includeProbes,
    maxExplanationChars: e.maxExplanationChars,
    labelOf,
    isFailing: failingByThreshold(registry, config.alerts),
    metricsOf: judgedMetrics(registry),
    ...(e.answerUrlTemplate !== undefined ? { answerUrlOf: answerUrlOf(e.answerUrlTemplate) } : {}),
    redact: (texts) => {
      const r = redactor.redactWith((redact) => texts.map(redact));
      return r.ok ? r.value : undefined;
    },
  });
}

/**
 * `ragwatch start`: the whole pipeline in one process with its two HTTP servers.
 * @module
 */
import { judgeChoiceNote } from '../judges/create.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import { silentLogger, type Logger } from '../log.ts';
import type { Judge } from '../judges/types.ts';
import { createInstruments } from '../telemetry/instruments.ts';
import { QualityMonitor } from './quality.ts';
import { withPseudonymKey } from './pseudonym-key.ts';
import { ConfigError } from '../errors.ts';
import { configSummary } from '../config/summary.ts';
import { instrumentsOptionsFromConfig } from '../telemetry/instruments.ts';
import { Pipeline } from './pipeline.ts';
import type { SampledTriplet } from '../triplet.ts';
import { createProber } from '../probes/create.ts';
import { createExamMonitor } from '../exams/create.ts';
import type { Prober } from '../probes/prober.ts';
import { startHttpServers } from './http-servers.ts';
import { recordIngestOutcome } from '../server/ingest-metrics.ts';
import type { RunningServer } from './serve.ts';
import type { GrpcIngest } from '../server/ingest-grpc.ts';
import { startIngestServers, type IngestServers } from './ingest-servers.ts';
import { SamplingTopics, sharedSamplingTopics } from '../weakness/sampling-topics.ts';
import { createOtlpTopicIngest, type OtlpTopicIngest } from './otlp-topics.ts';
import { openHistory } from '../history/create.ts';
import { metricRegistryOf } from '../metric-registry.ts';
import { createEvaluationExport } from '../evaluation-export/create.ts';
import { RecentAnswers } from '../feedback/recent-answers.ts';
import { feedbackRoute, startFeedback } from './feedback.ts';
import { roleTopics } from '../transport/kafka-topics.ts';
import { openAnswerStore, openReviewStore } from '../store/create.ts';
import type { TrailRecorder } from '../trail/types.ts';
import { createTrail, exportSettled, traceQueued } from './trail.ts';

/** Share of `capture.maxBufferedSpans` above which new OTLP requests are refused whole (503). */
const CAPTURE_FULL = 0.9;

/** A running `ragwatch start`. */
export interface RunningApp {
  pipeline: Pipeline;
  /** Windowed means, in-process alerts, diagnosis and examples. */
  quality: QualityMonitor;
  /** The scheduled probes (`probes.suites`); absent without suites. */
  prober: Prober | undefined;
  otlp: RunningServer;
  /** OTLP/gRPC (absent with `server.otlpGrpc: false`). */
  otlpGrpc: GrpcIngest | undefined;
  /** The OTLP topic consumer (`ingest.kafka`; absent when off). */
  otlpTopics: OtlpTopicIngest | undefined;
  http: RunningServer;
  /** The UI server: `http` itself unless `server.uiPort` is set. */
  ui: RunningServer;
  /** Stops ingest, finishes in-flight scoring within the grace period, closes servers. Idempotent. */
  shutdown(): Promise<void>;
}

/** Hands forwarded triplets to the scoring queue, counted as received (the plugin counted them produced). */
function receiveForwarded(pipeline: Pipeline, triplets: SampledTriplet[], trail: TrailRecorder | undefined): void {
  for (const t of triplets) {
    pipeline.instruments.received.inc();
    pipeline.instruments.inFlight.inc();
    trail?.record(t.traceId, { stage: 'sampling', outcome: 'sampled', reason: t.sampling.rule, tripletId: t.id, detail: `captured and sampled by the in-process plugin in the service (rule ${t.sampling.rule}, stratum ${t.sampling.stratum}), forwarded over HTTP` });
    const accepted = pipeline.producer?.send(t) ?? false;
    if (trail) traceQueued(trail, t, accepted, 'memory queue (transport.maxQueueSize)');
  }
}

/** Starts ingest + pipeline + metrics servers. The judge loads in the background (see `/readyz`). */
export async function startApp(config: RagwatchConfig, logger: Logger = silentLogger, options: { role?: 'all' | 'collector'; judge?: Judge } = {}): Promise<RunningApp> {
  if (config.transport.kind === 'http') throw new ConfigError('config key "transport.kind": "http" is the in-process plugin\'s forwarding to a ragwatch process; ragwatch start and collector use memory or kafka', ['transport.kind']);
  config = withPseudonymKey(config, options.role === 'collector' ? 'collector' : 'start', logger);
  // `start` judges in-process (role all) even with Kafka configured; `ragwatch collector` passes role collector.
  const instruments = createInstruments(instrumentsOptionsFromConfig(config));
  const role = options.role ?? 'all';
  // Answers for human review are kept where they are scored.
  const review = role === 'all' ? await openReviewStore(config, instruments.registry, logger) : undefined;
  // Slice alerts need every record: here when this process scores (a collector scores none).
  const quality = new QualityMonitor({ config, instruments, logger, slices: role === 'all', ...(review ? { review } : {}) });
  // Collectors forward span records for `ragwatch assembler` unless local assembly is configured (one replica only).
  const forwardSpans = role === 'collector' && config.transport.kafka.assembly === 'spans_topic';
  let prober: Prober | undefined;
  // Sampling by topic: the scoring process's own model; a collector reads the shared one from Kafka.
  const shared = role === 'collector' ? sharedSamplingTopics(config, logger) : undefined;
  const topicOf = shared?.topics.topicOf ?? new SamplingTopics(() => quality.topics?.model).topicOf;
  // Feedback on answers never judged still gets their service: capture remembers what it saw.
  const recent = config.feedback.enabled ? new RecentAnswers() : undefined;
  const kafkaTopics = role === 'collector' && config.transport.kind === 'kafka' ? roleTopics(config.transport.kafka, 'collector') : undefined;
  // What each stage decided about the last traces (the answer page): this process's part of the trail.
  const trail = createTrail(config, instruments.registry);
  const pipeline = new Pipeline({ config, instruments, sinks: [quality], ...(options.judge ? { judge: options.judge } : {}), role, logger, autoLocalJudge: true, forwardSpans, topicOf, ...(recent ? { onOutcome: recent.note } : {}), ...(kafkaTopics ? { kafkaTopics } : {}), ...(trail ? { trail } : {}) });
  // The judged answers, for the answer page, kept where they are scored.
  const answers = role === 'all' ? await openAnswerStore(config, instruments.registry, logger) : undefined;
  if (answers) pipeline.sinks.add(answers);
  const feedback = await startFeedback(config, { registry: instruments.registry, logger, role: role === 'all' ? 'start' : 'collector', notifier: quality.notifier, ...(recent ? { recent } : {}) });
  if (feedback?.sink) pipeline.sinks.add(feedback.sink);
  if (feedback && role === 'all') quality.feedback = feedback.hub;
  // The history is kept where every score is seen: here when this process scores (a collector scores none).
  const history = role === 'all' ? await openHistory(config, { registry: instruments.registry, logger, serviceOf: (r) => quality.scores.serviceOf(r), thresholds: () => quality.scores.thresholds(), metrics: metricRegistryOf(config) }) : undefined;
  if (history) {
    pipeline.sinks.add(history.sink);
    quality.notifier.observe(history.sink.onNotices);
    quality.history = history.view;
  }
  // Verdicts written onto the traces (OTLP, Phoenix, Langfuse) where the answers are scored.
  const evaluationExport = role === 'all' ? createEvaluationExport(config, { registry: instruments.registry, logger, ...(trail ? { onSettled: exportSettled(trail) } : {}) }) : undefined;
  if (evaluationExport) pipeline.sinks.add(evaluationExport);
  // Probes are asked from the process that scores their traces (one per deployment: never the collectors).
  if (role === 'all') {
    quality.exams = await createExamMonitor(config, instruments.registry, logger);
    prober = await createProber(config, { registry: instruments.registry, logger, judge: pipeline.judge, recordsPerTrace: pipeline.companion ? 2 : 1, notifier: quality.notifier });
    if (prober) pipeline.sinks.add(prober);
  }
  const { server } = config;
  // Whole requests are refused (OTLP) or partitions paused (OTLP topics) before the capture buffer drops spans one by one (which would cut traces).
  const saturation = () => (pipeline.capture.fullness >= CAPTURE_FULL ? `capture buffer ${Math.round(pipeline.capture.fullness * 100)} % of capture.maxBufferedSpans` : undefined);
  const otlpTopics = createOtlpTopicIngest(config, pipeline, logger, saturation, feedback?.onSpans);
  const servers = await startHttpServers(server, { registry: pipeline.instruments.registry, ready: () => pipeline.ready && (otlpTopics?.consumer.running ?? true), quality, summary: () => configSummary(config), probes: prober, answers: { trail, answers, role: role === 'all' ? 'start' : 'collector' } }, logger);
  const { http } = servers;
  let ingest: IngestServers;
  try {
    ingest = await startIngestServers(server, {
      onSpans: (spans) => {
        pipeline.ingestSpans(spans, 'otlp');
        feedback?.onSpans(spans);
      },
      onLogs: (logs) => pipeline.ingestLogs(logs, 'otlp'),
      saturation,
      onOutcome: (outcome) => recordIngestOutcome(pipeline.instruments, outcome),
      // Triplets a plugin captured, redacted and sampled in its host: judged here like our own sampled ones.
      ...(role === 'all' ? { onTriplets: (triplets: SampledTriplet[]) => receiveForwarded(pipeline, triplets, trail) } : {}),
      ...(feedback ? { feedback: feedbackRoute(server, feedback) } : {}),
    });
  } catch (err) {
    await servers.close();
    throw err;
  }
  const otlp = ingest.http;
  pipeline.start().then(
    () => logger.info({ judge: pipeline.judge.kind }, 'judge ready'),
    (err: unknown) => logger.error({ err }, 'judge failed to start; triplets will be counted as failed'),
  );
  if (!options.judge) {
    const note = judgeChoiceNote(config);
    if (note) logger.info(note);
  }
  otlpTopics?.start();
  quality.start();
  feedback?.start();
  history?.start();
  prober?.start();
  logger.info({ otlp: `http://${server.host}:${otlp.port}/v1/traces`, ...(ingest.grpc ? { otlpGrpc: `${server.host}:${ingest.grpc.port}` } : {}), metrics: `http://${server.host}:${http.port}/metrics` }, 'ragwatch started');

  let stopping: Promise<void> | undefined;
  return {
    pipeline,
    quality,
    prober,
    otlp,
    otlpGrpc: ingest.grpc,
    otlpTopics,
    http,
    ui: servers.ui,
    shutdown: () =>
      (stopping ??= (async () => {
        await prober?.shutdown();
        await otlpTopics?.shutdown();
        await ingest.close(server.shutdownGraceMs);
        await pipeline.shutdown();
        await evaluationExport?.shutdown();
        answers?.close();
        await feedback?.shutdown();
        await quality.shutdown();
        await history?.shutdown();
        await quality.exams?.shutdown();
        await shared?.shutdown();
        await servers.close();
      })()),
  };
}

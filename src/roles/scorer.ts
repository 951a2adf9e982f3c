/**
 * `ragwatch scorer`: Kafka consumer group → judges → the consumers of score records (metrics and
 * alerts, calibration, weakness map, review store), scores topic and DLQ. Serves /metrics, /healthz,
 * /readyz and the UI. Scale by running more replicas (up to the triplets topic's partition count).
 * @module
 */
import { configSummary } from '../config/summary.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import { silentLogger, type Logger } from '../log.ts';
import { openAnswerStore, openReviewStore } from '../store/create.ts';
import { createTrail, exportSettled } from './trail.ts';
import { LabelBus } from '../store/label-bus.ts';
import { createInstruments, instrumentsOptionsFromConfig } from '../telemetry/instruments.ts';
import { createKafka } from '../transport/kafka-client.ts';
import { roleTopics } from '../transport/kafka-topics.ts';
import { TopicModelBus } from '../weakness/topic-bus.ts';
import { createEvaluationExport } from '../evaluation-export/create.ts';
import { startFeedback } from './feedback.ts';
import { startHttpServers, type HttpServers } from './http-servers.ts';
import { Pipeline } from './pipeline.ts';
import { QualityMonitor } from './quality.ts';

/** A running `ragwatch scorer`. */
export interface RunningScorer {
  pipeline: Pipeline;
  quality: QualityMonitor;
  servers: HttpServers;
  /** Finishes the current batch, commits, leaves the group, stops the consumers and servers. Idempotent. */
  shutdown(): Promise<void>;
}

/** Starts the scorer role; the judge loads in the background (see `/readyz`). */
export async function startScorer(config: RagwatchConfig, logger: Logger = silentLogger): Promise<RunningScorer> {
  // Scores are made here in split mode: windowed means, alerts, diagnosis and examples live here too.
  const instruments = createInstruments(instrumentsOptionsFromConfig(config));
  const review = await openReviewStore(config, instruments.registry, logger);
  // Every replica fits the same calibration: labels given on any replica travel on the labels topic.
  const labelBus = review ? new LabelBus({ kafka: createKafka(config.transport.kafka, logger, '-labels'), section: config.transport.kafka, store: review, logger }) : undefined;
  void labelBus?.start();
  const quality = new QualityMonitor({ config, instruments, logger, slices: false, ...(review ? { review } : {}) });
  // Every replica uses the same topics: the earliest fit of each generation, shared on the topic-models topic.
  const topicBus = quality.topics ? new TopicModelBus({ kafka: createKafka(config.transport.kafka, logger, '-topics'), section: config.transport.kafka, onModel: (m) => quality.topics?.offer(m), logger }) : undefined;
  if (topicBus) quality.weakness.publish = (m) => topicBus.publish(m);
  void topicBus?.start();
  // This replica's part of the trail: what it read from Kafka, judged and exported (docs/answers.md#split-mode).
  const trail = createTrail(config, instruments.registry);
  const pipeline = new Pipeline({ config, instruments, sinks: [quality], role: 'scorer', logger, autoLocalJudge: true, kafkaTopics: roleTopics(config.transport.kafka, 'scorer'), ...(trail ? { trail } : {}) });
  const answers = await openAnswerStore(config, instruments.registry, logger);
  if (answers) pipeline.sinks.add(answers);
  // Each replica exports the verdicts of the answers it scores.
  const evaluationExport = createEvaluationExport(config, { registry: instruments.registry, logger, ...(trail ? { onSettled: exportSettled(trail) } : {}) });
  if (evaluationExport) pipeline.sinks.add(evaluationExport);
  // Every replica holds all feedback (the labels topic) and the answers it scored; joined pairs are shared.
  const feedback = await startFeedback(config, { registry: instruments.registry, logger, role: 'scorer', notifier: quality.notifier });
  if (feedback?.sink) pipeline.sinks.add(feedback.sink);
  if (feedback) quality.feedback = feedback.hub;
  const servers = await startHttpServers(config.server, { registry: instruments.registry, ready: () => pipeline.ready, quality, summary: () => configSummary(config), answers: { trail, answers, role: 'scorer' } }, logger);
  logger.info({ metrics: `http://${config.server.host}:${servers.http.port}/metrics`, group: config.transport.kafka.groupId, judge: pipeline.judge.kind }, 'ragwatch scorer started');
  pipeline.start().then(
    () => logger.info({ judge: pipeline.judge.kind }, 'scorer consuming'),
    (err: unknown) => logger.error({ err }, 'scorer failed to start'),
  );
  quality.start();
  feedback?.start();
  let stopping: Promise<void> | undefined;
  return {
    pipeline,
    quality,
    servers,
    shutdown: () =>
      (stopping ??= (async () => {
        await pipeline.shutdown();
        await evaluationExport?.shutdown();
        answers?.close();
        await feedback?.shutdown();
        await labelBus?.shutdown();
        await topicBus?.shutdown();
        await quality.shutdown();
        await servers.close();
      })()),
  };
}

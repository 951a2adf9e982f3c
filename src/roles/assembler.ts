/**
 * `ragwatch assembler`: consumer group on the spans topic → capture (the same assembler, mappers,
 * latency, redaction, sampling and accounting as a local collector) → sampled triplets to the
 * triplets topic. Serves `/metrics`, `/healthz`, `/readyz`, and its part of the trail at `/answers/<traceId>`
 * (behind the UI's authentication, docs/answers.md).
 * @module
 */
import { KafkaSpanConsumer } from '../assembly/span-consumer.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import { silentLogger, type Logger } from '../log.ts';
import { createInstruments } from '../telemetry/instruments.ts';
import { instrumentsOptionsFromConfig } from '../telemetry/instruments.ts';
import { sharedSamplingTopics } from '../weakness/sampling-topics.ts';
import { Pipeline } from './pipeline.ts';
import { createApiApp } from '../server/api-app.ts';
import { createTrail } from './trail.ts';
import { listen, type RunningServer } from './serve.ts';
import { BufferedKafkaProducer } from '../transport/kafka-buffered-producer.ts';
import { createKafka, producerSettingsOf } from '../transport/kafka-client.ts';
import { roleTopics } from '../transport/kafka-topics.ts';
import type { KafkaTripletProducer } from '../transport/kafka-producer.ts';

/** A running assembler. */
export interface RunningAssembler {
  pipeline: Pipeline;
  consumer: KafkaSpanConsumer;
  http: RunningServer;
  /** Stops fetching, sends the triplets assembled, commits, hands buffered traces over, leaves the group. Idempotent. */
  shutdown(): Promise<void>;
}

/** Starts the assembling stage of split mode. */
export async function startAssembler(config: RagwatchConfig, logger: Logger = silentLogger): Promise<RunningAssembler> {
  const section = config.transport.kafka;
  const instruments = createInstruments(instrumentsOptionsFromConfig(config));
  // The collectors redacted every string of the records with the same policy: not a second time here.
  const shared = sharedSamplingTopics(config, logger);
  // Its part of the trail: capture, sampling and queueing of the traces of its partitions (docs/answers.md#split-mode).
  const trail = createTrail(config, instruments.registry);
  const pipeline = new Pipeline({ config, instruments, role: 'collector', logger, spansRedacted: true, kafkaTopics: roleTopics(section, 'assembler'), ...(shared ? { topicOf: shared.topics.topicOf } : {}), ...(trail ? { trail } : {}) });
  const triplets = pipeline.producer as KafkaTripletProducer;
  const graceMs = config.server.shutdownGraceMs;
  const dlq = new BufferedKafkaProducer({ kafka: createKafka(section, logger), topic: section.topics.dlq, ...producerSettingsOf(section), logger });
  const consumer = new KafkaSpanConsumer({
    kafka: createKafka(section, logger),
    section,
    instruments,
    sink: pipeline.capture,
    dlq,
    flushTriplets: async () => {
      await triplets.forceFlush(graceMs);
      // Offsets move only past traces whose triplets Kafka has acknowledged (or that were dropped, counted).
      if (triplets.depth > 0) throw new Error(`${triplets.depth} triplets not yet acknowledged`);
    },
    logger,
  });
  let ready = false;
  const { server } = config;
  const app = createApiApp({ registry: instruments.registry, ready: () => ready && consumer.running && pipeline.ready, auth: { apiToken: server.apiToken, host: server.host, allowUnauthenticated: server.allowUnauthenticatedUi }, traceUrlTemplate: server.traceUrlTemplate, ...(trail ? { answers: { trail, role: 'assembler' as const } } : {}) });
  const http = await listen(app, server.host, server.httpPort);
  await pipeline.start();
  // The span consumer joins once the topics exist (created here when missing).
  void pipeline.kafkaTopicsReady().then(() => consumer.start()).then(() => (ready = true));
  logger.info({ metrics: `http://${config.server.host}:${http.port}/metrics`, group: section.assemblerGroupId, topic: section.topics.spans }, 'ragwatch assembler started');
  let stopping: Promise<void> | undefined;
  return {
    pipeline,
    consumer,
    http,
    shutdown: () =>
      (stopping ??= (async () => {
        // Hands buffered traces over to the partitions' next owner: nothing is left for capture to flush.
        await consumer.shutdown();
        await pipeline.shutdown();
        await shared?.shutdown();
        await dlq.shutdown(1_000);
        await http.close();
      })()),
  };
}

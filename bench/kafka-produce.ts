/**
 * Kafka produce throughput into a local Apache Kafka broker (one KRaft node started by
 * tests/helpers/kafka-broker.ts, a 4-partition topic) vs raw kafkajs `send` of the same payloads in
 * the same batch size (500, acks=all, gzip, idempotent — ragwatch's defaults — sequentially awaited).
 * Rounds alternate and the medians are compared. Needs Java 17+ and the broker jars
 * (scripts/kafka/jars.sh).
 *
 * - kafka_produce_ratio_vs_raw (the performance issue's figure, target ≥ 0.8): the whole collector
 *   end to end — spans → capture (assembly, mapping, redaction) → sampling → producer →
 *   acknowledged; capture runs concurrently with sending.
 * - kafka_transport_ratio_vs_raw: the collector's transport path alone — sampled triplets →
 *   `KafkaTripletProducer.send` (serialize, size check, bounded buffer, hand-over to the producer
 *   thread) → batches → acknowledged.
 * The collector and the producer live across rounds, as in a long-running collector (a fresh
 * producer thread starts with cold JIT); the raw producer reconnects each round (connecting is not
 * timed) and its code is warm on the main thread.
 * Absolute triplets/s go to stderr.
 */
import { CompressionTypes, Kafka, logLevel, Partitioners, type Message } from 'kafkajs';
import type { CapturedSpan } from '../src/capture/types.ts';
import { loadConfig } from '../src/config/load.ts';
import { createInstruments, type Instruments } from '../src/telemetry/instruments.ts';
import { Pipeline } from '../src/roles/pipeline.ts';
import { KafkaTripletProducer } from '../src/transport/kafka-producer.ts';
import type { SampledTriplet } from '../src/triplet.ts';
import { SCHEMA_VERSION } from '../src/triplet.ts';
import { haveKafka, startKafkaCluster } from '../tests/helpers/kafka-broker.ts';
import { emit, median, profiled, QUICK } from './lib.ts';
import { ragTrace } from './rag-trace.ts';

const N = QUICK ? 2_000 : 10_000;
// Nine rounds in a full run: one round takes ~0.3 s per path, and the ratio of two medians of five moved by ±0.1 between runs.
const ROUNDS = QUICK ? 3 : 9;
const BATCH = 500;
/** Traces per ingest call: 256 two-span traces fill one OTLP export request of 512 spans. */
const REQUEST_TRACES = 256;

/** A collector pipeline kept for every round, as a long-running collector is: connected, its threads warm. */
async function startCollector(brokers: string[], topic: string): Promise<Pipeline> {
  const config = loadConfig({
    env: {},
    overrides: {
      transport: { kind: 'kafka', kafka: { brokers, topics: { triplets: topic }, producer: { batchMaxMessages: BATCH, maxBufferMessages: N * 2 } } },
      metrics: { processMetrics: false },
    },
  });
  const pipeline = new Pipeline({ config, role: 'collector' });
  await pipeline.start();
  return pipeline;
}

const producedSoFar = async (instruments: Instruments) => (await instruments.produced.get()).values[0]?.value ?? 0;

async function collectorRound(pipeline: Pipeline, traces: CapturedSpan[][], keep?: SampledTriplet[]): Promise<number> {
  const before = await producedSoFar(pipeline.instruments);
  const producer = pipeline.producer!;
  if (keep) producer.send = (t) => (keep.push(t), Object.getPrototypeOf(producer).send.call(producer, t));
  const started = performance.now();
  for (let i = 0; i < traces.length; i += BATCH) {
    // One ingest call per OTLP request, which carries up to 512 spans (the SDK's maxExportBatchSize).
    for (let j = i; j < Math.min(i + BATCH, traces.length); j += REQUEST_TRACES) pipeline.ingestSpans(traces.slice(j, Math.min(j + REQUEST_TRACES, i + BATCH, traces.length)).flat(), 'otlp');
    await pipeline.capture.forceFlush();
    // Let the producer's hand-over run between ingest requests, as in a live collector.
    await new Promise((r) => setImmediate(r));
  }
  await pipeline.forceFlush();
  const elapsed = performance.now() - started;
  if (keep) delete (producer as Partial<typeof producer>).send;
  const produced = (await producedSoFar(pipeline.instruments)) - before;
  if (produced !== traces.length) throw new Error(`collector produced ${produced} of ${traces.length}`);
  return (traces.length / elapsed) * 1000;
}

async function producerRound(producer: KafkaTripletProducer, instruments: Instruments, triplets: SampledTriplet[]): Promise<number> {
  const before = await producedSoFar(instruments);
  const started = performance.now();
  for (const t of triplets) producer.send(t);
  await producer.forceFlush();
  const elapsed = performance.now() - started;
  const produced = (await producedSoFar(instruments)) - before;
  if (produced !== triplets.length) throw new Error(`producer delivered ${produced} of ${triplets.length}`);
  return (triplets.length / elapsed) * 1000;
}

async function rawRound(brokers: string[], topic: string, payloads: Message[]): Promise<number> {
  // The same delivery guarantee as ragwatch's producer (producer.idempotent, default true).
  const producer = new Kafka({ brokers, logLevel: logLevel.NOTHING }).producer({ idempotent: true, maxInFlightRequests: 1, createPartitioner: Partitioners.DefaultPartitioner });
  await producer.connect();
  const started = performance.now();
  for (let i = 0; i < payloads.length; i += BATCH) {
    await producer.send({ topic, messages: payloads.slice(i, i + BATCH), acks: -1, compression: CompressionTypes.GZIP });
  }
  const elapsed = performance.now() - started;
  await producer.disconnect();
  return (payloads.length / elapsed) * 1000;
}

// Missing Java or jars: skipped loudly here, an error under CI=true (haveKafka throws).
if (!haveKafka('bench kafka-produce')) process.exit(0);
const kafka = await startKafkaCluster();
try {
  const topic = 'bench.triplets.v1';
  await kafka.createTopic(topic, 4);
  const collector = await startCollector(kafka.brokers, topic);
  const section = loadConfig({ env: {}, overrides: { transport: { kafka: { brokers: kafka.brokers, topics: { triplets: topic }, producer: { batchMaxMessages: BATCH, maxBufferMessages: N * 2 } } } } }).transport.kafka;
  const instruments = createInstruments({ processMetrics: false });
  const producer = new KafkaTripletProducer({ section, instruments });
  await producer.connect();
  // Warm-up: JITs every path and records the exact payloads the collector sends.
  const sample: SampledTriplet[] = [];
  await collectorRound(collector, Array.from({ length: N }, (_, i) => ragTrace(i)), sample);
  const payloads: Message[] = sample.map((t) => ({ key: t.traceId, value: JSON.stringify(t), headers: { 'schema-version': SCHEMA_VERSION, 'content-type': 'application/json' } }));
  await rawRound(kafka.brokers, topic, payloads);
  await producerRound(producer, instruments, sample);
  const e2e: number[] = [];
  const transport: number[] = [];
  const raw: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    raw.push(await rawRound(kafka.brokers, topic, payloads));
    transport.push(await producerRound(producer, instruments, sample));
    const traces = Array.from({ length: N }, (_, i) => ragTrace(i));
    e2e.push(await profiled(`kafka-collector-${r}`, () => collectorRound(collector, traces)));
  }
  await producer.shutdown(2_000);
  await collector.shutdown(2_000);
  const base = median(raw);
  const ratio = median(transport) / base;
  const e2eRatio = median(e2e) / base;
  process.stderr.write(`kafka-produce: raw ${base.toFixed(0)}/s, transport path ${median(transport).toFixed(0)}/s, collector end-to-end ${median(e2e).toFixed(0)}/s (${N} triplets, ${ROUNDS} rounds)\n`);
  emit({ bench: 'kafka', figure: 'kafka_produce_ratio_vs_raw', value: e2eRatio, unit: 'ratio', baseline: 1, ratio: e2eRatio });
  emit({ bench: 'kafka', figure: 'kafka_transport_ratio_vs_raw', value: ratio, unit: 'ratio', baseline: 1, ratio });
} finally {
  await kafka.stop();
}

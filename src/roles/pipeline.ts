/**
 * Wires the stages of one process: capture → sampling → transport → scorer → metrics.
 * The transport comes from config (`memory`, the default, or `kafka`), and the role picks the
 * parts that run: `all` (capture + scoring), `collector` (capture → sample → produce) or
 * `scorer` (consume → score). `ragwatch start`, `collector`, `scorer` and the in-process span
 * processor all run this.
 * @module
 */
import { Capture } from '../capture/capture.ts';
import { SpanForwarder } from '../assembly/span-forwarder.ts';
import type { SpanIngest } from '../assembly/types.ts';
import { createRedactor, redactionForPipeline } from '../capture/redaction/redact-outcome.ts';
import { CONVERSATION_ATTRIBUTES } from '../capture/conversation.ts';
import type { CapturedLog, CapturedSpan, GenerationOutcome, SpanSource } from '../capture/types.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import { createEvaluators } from '../evaluators/create.ts';
import { createCompanionJudge, createJudge } from '../judges/create.ts';
import type { Judge } from '../judges/types.ts';
import { createInstruments, type Instruments } from '../telemetry/instruments.ts';
import { instrumentsOptionsFromConfig } from '../telemetry/instruments.ts';
import { silentLogger, type Logger } from '../log.ts';
import { ScoringBudget } from '../sampling/budget.ts';
import { piiCheckOf } from '../judges/pii.ts';
import type { Sampler } from '../sampling/types.ts';
import { RecordSinks, type RecordSink } from '../scorer/record-sinks.ts';
import { sampleInto, samplerFor, type SampleTrail } from './sample-stage.ts';
import { flagRuleOf, traceAssembled, traceDropped, traceOutcome, traceSpans, tracedHandler } from './trail.ts';
import type { TrailRecorder } from '../trail/types.ts';
import { samplingAttributeKeys } from '../config/sampling-attributes.ts';
import { Scorer } from '../scorer/scorer.ts';
import { BufferedKafkaProducer } from '../transport/kafka-buffered-producer.ts';
import { createKafka, producerSettingsOf } from '../transport/kafka-client.ts';
import { KafkaTripletConsumer } from '../transport/kafka-consumer.ts';
import { KafkaTripletProducer } from '../transport/kafka-producer.ts';
import { KafkaTopicSetup, type TopicSpec } from '../transport/kafka-topics.ts';
import { MemoryTransport } from '../transport/memory.ts';
import type { TripletConsumer, TripletProducer } from '../transport/types.ts';
import type { SampledTriplet, ScoreRecord, Triplet } from '../triplet.ts';

/**
 * Which parts of the pipeline a process runs: `all` (capture, sampling and scoring), `collector`
 * (capture → sample → produce to Kafka) or `scorer` (consume from Kafka → judge → metrics).
 */
export type PipelineRole = 'all' | 'collector' | 'scorer';

/** Options of {@link Pipeline}; only `config` is required. */
export interface PipelineOptions {
  config: RagwatchConfig;
  /** Judge to use; default from `config.judge`. */
  judge?: Judge;
  /** Companion judge; default from `config.judge.embedded.alongside` ({@link createCompanionJudge}). */
  companion?: Judge;
  sampler?: Sampler;
  /** `sampling.strata.by: topic`: the question's topic id (see `createSampler`). */
  topicOf?: (query: string) => string | undefined;
  instruments?: Instruments;
  /** The consumers of score records, fed in order (more can be added to {@link Pipeline.sinks} later). */
  sinks?: readonly RecordSink[];
  /** Receives every ScoreRecord (after `sinks`). */
  onRecord?: (record: ScoreRecord, triplet: SampledTriplet) => void;
  /** Receives every capture outcome (triplet or incomplete). */
  onOutcome?: (outcome: GenerationOutcome) => void;
  /**
   * Parts to run. Default `all` with the memory transport, `collector` with Kafka (so the
   * in-host span processor produces to Kafka and leaves judging to `ragwatch scorer`).
   */
  role?: PipelineRole;
  /** Logger for transport warnings (and the judge's). Default silent. */
  logger?: Logger;
  /**
   * `judge.kind` unset and no endpoint: judge with the local model when it is in the cache
   * (`ragwatch start` and `ragwatch scorer`; never the in-process plugin). Default false.
   */
  autoLocalJudge?: boolean;
  /**
   * Collector role with Kafka: send compact redacted span records to the spans topic for
   * `ragwatch assembler` instead of assembling here (`transport.kafka.assembly: spans_topic`).
   */
  forwardSpans?: boolean;
  /** Spans arrive as collectors' redacted span records (`ragwatch assembler`): capture does not redact the text again. */
  spansRedacted?: boolean;
  /**
   * The process's trail (docs/answers.md): spans received, capture's outcomes, sampling, queueing and
   * judging are told to it. Default none (the in-process plugin keeps no trail).
   */
  trail?: TrailRecorder;
  /**
   * Kafka topics this role creates when missing (`transport.kafka.createTopics`) before it consumes;
   * the role is not ready until they exist. Default none (the in-process plugin creates nothing).
   */
  kafkaTopics?: readonly TopicSpec[];
}

export class Pipeline {
  readonly config: RagwatchConfig;
  readonly instruments: Instruments;
  readonly capture: Capture;
  readonly sampler: Sampler;
  readonly role: PipelineRole;
  /** Where sampled triplets go (absent in the scorer role and when forwarding spans). */
  readonly producer: TripletProducer | undefined;
  /** Split assembly: where a collector's spans go instead of local capture. */
  readonly forwarder: SpanForwarder | undefined;
  /** Where triplets to score come from (absent in the collector role). */
  readonly consumer: TripletConsumer | undefined;
  readonly judge: Judge;
  /** Scores every triplet next to `judge` (`judge.embedded.alongside`); absent by default. */
  readonly companion: Judge | undefined;
  readonly scorer: Scorer;
  /** Where score records go: the sinks the role registered. */
  readonly sinks: RecordSinks;
  /** Where ingested spans go: the forwarder in split assembly, else local capture. */
  readonly #ingest: SpanIngest;
  readonly #memory: MemoryTransport | undefined;
  /** `producer` when it is Kafka's: its connect, flush and shutdown take deadlines. */
  readonly #kafkaTriplets: KafkaTripletProducer | undefined;
  readonly #kafkaOut: BufferedKafkaProducer | undefined;
  readonly #topics: KafkaTopicSetup | undefined;
  readonly #trail: TrailRecorder | undefined;
  readonly #sampleTrail: SampleTrail | undefined;
  #started: Promise<void> | undefined;
  #shutdown: Promise<void> | undefined;

  constructor(options: PipelineOptions) {
    const { config } = options;
    this.config = config;
    this.instruments = options.instruments ?? createInstruments(instrumentsOptionsFromConfig(config));
    this.judge = options.judge ?? createJudge(config, { instruments: this.instruments, ...(options.logger ? { logger: options.logger } : {}), ...(options.autoLocalJudge ? { autoLocal: true } : {}) });
    this.companion = options.companion ?? createCompanionJudge(config);
    const kafkaKind = config.transport.kind === 'kafka';
    this.role = options.role ?? (kafkaKind ? 'collector' : 'all');
    const logger = options.logger ?? silentLogger;
    const consumerSection = config.transport.kafka.consumer;
    const pii = piiCheckOf(config);
    this.sinks = new RecordSinks(options.sinks);
    const onRecord = options.onRecord;
    if (onRecord) this.sinks.add({ onRecord: (record, triplet) => triplet && onRecord(record, triplet) });
    const evaluators = createEvaluators(config);
    this.scorer = new Scorer({
      judge: this.judge,
      ...(pii ? { pii } : {}),
      ...(evaluators ? { evaluators } : {}),
      ...(this.companion ? { companion: this.companion } : {}),
      instruments: this.instruments,
      budget: new ScoringBudget(config.sampling.budget),
      maxAttempts: consumerSection.maxAttempts,
      retryBackoffMs: consumerSection.retryBackoffMs,
      onRecord: this.sinks.onRecord,
      onUnscored: this.sinks.onFailure,
    });
    if (kafkaKind && options.kafkaTopics && options.kafkaTopics.length > 0) {
      const instruments = this.instruments;
      this.#topics = new KafkaTopicSetup({ kafka: createKafka(config.transport.kafka, logger, '-admin'), section: config.transport.kafka, topics: options.kafkaTopics, onError: (cause) => instruments.kafkaConnectionErrors.inc({ reason: cause.reason }), logger });
    }
    if (!kafkaKind) {
      this.#memory = new MemoryTransport({ maxQueueSize: config.transport.maxQueueSize, concurrency: config.judge.concurrency, instruments: this.instruments });
      this.producer = this.role === 'scorer' ? undefined : this.#memory;
      this.consumer = this.role === 'collector' ? undefined : this.#memory;
    } else {
      const section = config.transport.kafka;
      if (options.forwardSpans && this.role === 'collector') {
        this.forwarder = new SpanForwarder({ section, instruments: this.instruments, redactor: createRedactor(redactionForPipeline(config)), maxTextChars: config.capture.maxTextChars, conversationKeys: [...config.capture.conversation.attributes, ...CONVERSATION_ATTRIBUTES], resourceKeys: samplingAttributeKeys(config), logger });
      } else if (this.role !== 'scorer') this.producer = this.#kafkaTriplets = new KafkaTripletProducer({ section, instruments: this.instruments, logger });
      if (this.role !== 'collector') {
        const kafka = createKafka(section, logger);
        // Scores and DLQ entries are sent directly (acknowledged before the offset commit), never buffered.
        this.#kafkaOut = new BufferedKafkaProducer({ kafka, topic: section.topics.scores, ...producerSettingsOf(section), logger });
        this.consumer = new KafkaTripletConsumer({ kafka, section, instruments: this.instruments, producer: this.#kafkaOut, concurrency: config.judge.concurrency, logger });
      }
    }
    const trail = (this.#trail = options.trail);
    if (trail) this.#sampleTrail = { recorder: trail, where: this.#memory ? 'memory queue (transport.maxQueueSize)' : `kafka topic ${config.transport.kafka.topics.triplets} (partition by trace id)` };
    const onOutcome = options.onOutcome;
    const tellOutcome = trail
      ? (o: GenerationOutcome) => {
          traceOutcome(trail, o);
          onOutcome?.(o);
        }
      : onOutcome;
    this.capture = new Capture({
      config: config.capture,
      redaction: redactionForPipeline(config),
      textRedacted: options.spansRedacted ?? false,
      attributeKeys: samplingAttributeKeys(config),
      instruments: this.instruments,
      onTriplet: (t) => this.#sample(t),
      ...(tellOutcome ? { onOutcome: tellOutcome } : {}),
      ...(trail ? { onAssembled: (traceId: string, spans: number, generations: number, names: readonly string[]) => traceAssembled(trail, traceId, spans, generations, names), onDropped: (traceId: string, reason: string) => traceDropped(trail, traceId, reason) } : {}),
    });
    // After capture: configured attribute values are compared as capture's triplets carry them (pseudonyms).
    this.sampler = options.sampler ?? samplerFor(config, this.capture, options.topicOf ? { topicOf: options.topicOf } : {});
    this.#ingest = this.forwarder ?? this.capture;
  }

  /**
   * Collector: started, its Kafka topics exist, and its producer is not refused by the cluster
   * (authentication, TLS, authorization). Scoring roles: the judge is loaded and the consumer is delivering.
   */
  get ready(): boolean {
    if (this.#started === undefined) return false;
    if (this.#topics && !this.#topics.done) return false;
    if (this.#kafkaTriplets?.blocked || this.forwarder?.blocked) return false;
    if (!this.consumer) return true;
    return this.judge.ready && (this.companion?.ready ?? true) && this.consumer.running;
  }

  /**
   * Starts the role's parts: connects the Kafka producer (failures are not fatal: it buffers and
   * retries), loads the judge and starts consuming. Idempotent.
   */
  start(): Promise<void> {
    this.#started ??= (async () => {
      const topics = this.kafkaTopicsReady();
      await this.#kafkaTriplets?.connect().catch(() => undefined);
      await this.forwarder?.connect().catch(() => undefined);
      if (!this.consumer) return;
      await Promise.all([this.judge.init(), this.companion?.init(), topics]);
      await this.consumer.start(this.#trail ? tracedHandler(this.#trail, this.scorer.handle, flagRuleOf(this.config)) : this.scorer.handle);
    })();
    return this.#started;
  }

  /** Resolves once the role's Kafka topics exist (at once without any), or at shutdown. */
  kafkaTopicsReady(): Promise<void> {
    return this.#topics?.ensure() ?? Promise.resolve();
  }

  /** Feeds finished spans into capture. Never throws. */
  ingestSpans(spans: readonly CapturedSpan[], source: SpanSource): void {
    if (this.#trail) traceSpans(this.#trail, spans, source);
    this.#ingest.addSpans(spans, source);
  }

  /** Feeds log records (GenAI content events) into capture. Never throws. */
  ingestLogs(logs: readonly CapturedLog[], source: SpanSource): void {
    this.#ingest.addLogs(logs, source);
  }

  /** Assembles buffered traces and waits until everything sampled so far is scored. */
  async forceFlush(): Promise<void> {
    await this.capture.forceFlush();
    // Delivery begins once the judge is loaded; wait for it so "flushed" means "scored".
    if (this.#started) await this.#started.catch(() => undefined);
    // While Kafka is down its buffer cannot drain: never hang the host's forceFlush past the grace period.
    if (this.#kafkaTriplets) await this.#kafkaTriplets.forceFlush(this.config.server.shutdownGraceMs);
    else await this.producer?.forceFlush();
    await this.forwarder?.forceFlush(this.config.server.shutdownGraceMs);
    await this.consumer?.forceFlush();
  }

  /**
   * Stops capture, flushes the producer and finishes (or, past `graceMs`, drops and counts)
   * queued scoring, commits and leaves the consumer group, then stops the judge. Idempotent.
   */
  shutdown(graceMs: number = this.config.server.shutdownGraceMs): Promise<void> {
    this.#shutdown ??= (async () => {
      this.#topics?.shutdown();
      await this.capture.shutdown();
      const memory = this.#memory;
      if (memory) {
        const deadline = new Promise<'timeout'>((resolve) => setTimeout(resolve, graceMs, 'timeout').unref());
        const outcome = await Promise.race([memory.shutdown().then(() => 'done' as const), deadline]);
        if (outcome === 'timeout') {
          const rest = memory.drainUnhandled();
          if (rest.length > 0) {
            this.instruments.dropped.inc({ stage: 'scorer', reason: 'shutdown' }, rest.length);
            this.instruments.inFlight.dec(rest.length);
          }
        }
      } else {
        await this.#kafkaTriplets?.shutdown(Math.max(100, Math.floor(graceMs / 2)));
        await this.forwarder?.shutdown(Math.max(100, Math.floor(graceMs / 2)));
        await this.consumer?.shutdown();
        await this.#kafkaOut?.shutdown(1_000);
      }
      await Promise.all([this.judge.shutdown(), this.companion?.shutdown()]);
    })();
    return this.#shutdown;
  }

  #sample(triplet: Triplet): void {
    sampleInto(triplet, this.sampler, this.producer, this.instruments, this.#sampleTrail);
  }
}

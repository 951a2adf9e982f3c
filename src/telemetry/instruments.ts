/**
 * ragwatch's own prom-client registry and every instrument the pipeline records into.
 * Never the host's global registry. See docs/metrics.md for what each series means.
 * @module
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { refusedBatchCounts } from './kafka-refusals.ts';
import { LabelBound } from './label-bound.ts';
import { WeightedHistogram } from './weighted-histogram.ts';
import type { RagwatchConfig } from '../config/schema.ts';

/** OTel GenAI bucket advice for `gen_ai.server.time_to_first_token` (seconds). */
export const TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
/** OTel GenAI bucket advice for `gen_ai.server.time_per_output_token` (seconds). */
export const TPOT_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5];
/** OTel GenAI bucket advice for operation durations (seconds). */
export const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
/** OTel GenAI bucket advice for `gen_ai.client.token.usage` (tokens). */
export const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304];
/** Linear score buckets 0.1 … 1.0. */
export const SCORE_BUCKETS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];

/** Options of {@link createInstruments}. */
export interface InstrumentsOptions {
  /** Also expose prom-client's default Node process metrics. Default true. */
  processMetrics?: boolean;
  /** Extra score bucket bounds (every configured alert threshold). */
  scoreThresholds?: readonly number[];
  /** Allow-list of `service` label values of score series; empty = the first `maxServices` seen. Default []. */
  services?: readonly string[];
  /** Distinct `service` values admitted on first sight when `services` is empty; the rest become `other`. Default 20. */
  maxServices?: number;
}

/** Builds a fresh registry with every ragwatch instrument. */
export function createInstruments(options: InstrumentsOptions = {}) {
  const registry = new Registry();
  if (options.processMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: 'ragwatch_process_' });
  const registers = [registry];
  const scoreBuckets = [...new Set([...SCORE_BUCKETS, ...(options.scoreThresholds ?? [])])].sort((a, b) => a - b);

  return {
    registry,
    spansReceived: new Counter({ name: 'ragwatch_spans_received_total', help: 'Spans received, by source (otlp, processor, kafka: from the spans topic).', labelNames: ['source'], registers }),
    spansForwarded: new Counter({ name: 'ragwatch_spans_forwarded_total', help: 'Spans and log records acknowledged by Kafka on the spans topic (collector in split assembly; one message per trace and request).', registers }),
    probeRecords: new Counter({ name: 'ragwatch_probe_score_records_total', help: 'Score records of ground-truth probe triplets (trace id marked): kept out of the production score windows, alerts and examples.', registers }),
    spansHandedOver: new Counter({ name: 'ragwatch_spans_handed_over_total', help: 'Spans and log records an assembler handed over unassembled at a consumer-group rebalance or a graceful stop: their trace is re-read from the committed offset, by this assembler or the partition\'s next owner.', registers }),
    historyCut: new Counter({ name: 'ragwatch_conversation_history_cut_total', help: 'Earlier chat messages (unit messages) and characters (unit characters) left out of triplets by capture.conversation.maxTurns / maxChars.', labelNames: ['unit'], registers }),
    lateSpans: new Counter({ name: 'ragwatch_late_spans_total', help: 'Spans of a trace that arrived after the trace was assembled (context for their own generations only; never a second triplet for an earlier one).', registers }),
    assemblerLag: new Gauge({ name: 'ragwatch_assembler_lag_messages', help: 'Span records behind the spans topic high watermark, by partition (assembler).', labelNames: ['partition'], registers }),
    logsReceived: new Counter({ name: 'ragwatch_logs_received_total', help: 'Log records received (GenAI content events).', labelNames: ['source'], registers }),
    generationsSeen: new Counter({ name: 'ragwatch_generations_seen_total', help: 'Generation (LLM) spans seen, by convention.', labelNames: ['convention'], registers }),
    captured: new Counter({ name: 'ragwatch_triplets_captured_total', help: 'Triplets assembled from traces.', labelNames: ['convention'], registers }),
    ignoredSpans: new Counter({ name: 'ragwatch_capture_ignored_spans_total', help: 'Model-call spans that are not generations (embedding, rerank, moderation, tool, guardrail, evaluator): never triplets.', labelNames: ['reason', 'operation'], registers }),
    incomplete: new Counter({ name: 'ragwatch_triplets_incomplete_total', help: 'Generations not turned into a triplet, by the first missing field.', labelNames: ['missing'], registers }),
    redactions: new Counter({ name: 'ragwatch_redactions_total', help: 'PII occurrences replaced at capture, by entity (recognizer name).', labelNames: ['entity'], registers }),
    dropped: new Counter({ name: 'ragwatch_dropped_total', help: 'Items dropped, by pipeline stage and reason.', labelNames: ['stage', 'reason'], registers }),
    sampled: new Counter({ name: 'ragwatch_triplets_sampled_total', help: 'Captured triplets selected for judging.', labelNames: ['stratum'], registers }),
    notSampled: new Counter({ name: 'ragwatch_triplets_not_sampled_total', help: 'Captured triplets not selected for judging.', registers }),
    scored: new Counter({ name: 'ragwatch_triplets_scored_total', help: 'Sampled triplets scored by a judge.', labelNames: ['judge'], registers }),
    companion: new Counter({ name: 'ragwatch_companion_judged_total', help: 'Triplets also scored by the companion judge (judge.embedded.alongside), by judge and outcome (scored, failed); not part of the accounting identity.', labelNames: ['judge', 'outcome'], registers }),
    failed: new Counter({ name: 'ragwatch_triplets_failed_total', help: 'Sampled triplets whose scoring failed, by reason.', labelNames: ['reason'], registers }),
    inFlight: new Gauge({ name: 'ragwatch_triplets_in_flight', help: 'Sampled triplets queued or being scored in this process.', registers }),
    queueSize: new Gauge({ name: 'ragwatch_queue_size', help: 'Items waiting in a bounded queue, by stage.', labelNames: ['stage'], registers }),
    queueCapacity: new Gauge({ name: 'ragwatch_queue_capacity', help: 'Capacity of a bounded queue, by stage.', labelNames: ['stage'], registers }),
    score: new WeightedHistogram({ name: 'ragwatch_score_ratio', help: 'Judge scores in [0,1] (higher is better), observed with the sampling weight, by metric, judge kind and service.', labelNames: ['metric', 'judge', 'service'], buckets: scoreBuckets, registers, labelBounds: { service: new LabelBound(options.maxServices ?? 20, options.services ?? []) }, samplesName: 'ragwatch_score_samples_total', samplesHelp: 'Judged samples (unweighted), by metric, judge kind and service: the minimum-sample guard of alerts.', weightSquaresName: 'ragwatch_score_weight_squares_total', weightSquaresHelp: 'Sum of the squared sampling weights of judged samples, by metric, judge kind and service: with ragwatch_score_ratio_count, the effective sample size (Σw)²/Σw² of the change alerts.' }),
    responsePii: new Counter({ name: 'ragwatch_response_pii_total', help: 'Personal data disclosed by scored production answers, per entity type (email, phone, payment_card, …; judge.pii) — counted once per answer from redaction placeholders, never the values.', labelNames: ['type'], registers }),
    skipped: new Counter({ name: 'ragwatch_scores_skipped_total', help: 'Metrics not computed for a scored triplet, by reason (never reported as a score).', labelNames: ['metric', 'reason'], registers }),
    ttft: new Histogram({ name: 'ragwatch_time_to_first_token_seconds', help: 'Time to first token of captured generations.', labelNames: ['service', 'model', 'route'], buckets: TTFT_BUCKETS, registers }),
    tpot: new Histogram({ name: 'ragwatch_time_per_output_token_seconds', help: 'Time per output token after the first, of captured generations.', labelNames: ['service', 'model', 'route'], buckets: TPOT_BUCKETS, registers }),
    duration: new Histogram({ name: 'ragwatch_response_duration_seconds', help: 'Duration of captured generations.', labelNames: ['service', 'model', 'route'], buckets: DURATION_BUCKETS, registers }),
    outputTokens: new Histogram({ name: 'ragwatch_output_tokens', help: 'Output tokens of captured generations (when the span reports them).', labelNames: ['service', 'model', 'route'], buckets: TOKEN_BUCKETS, registers }),
    ingestRequests: new Counter({ name: 'ragwatch_ingest_requests_total', help: 'OTLP ingest requests, by endpoint (the signal: /v1/traces, /v1/logs), transport (http, grpc, kafka: one message of an OTLP topic), HTTP status (for gRPC and Kafka, the HTTP status theirs mirrors) and reason (ok, partial, unauthorized, saturated, rate_limited, too_large, invalid, unsupported_media_type, timeout, internal).', labelNames: ['endpoint', 'transport', 'status', 'reason'], registers }),
    judgeShed: new Counter({ name: 'ragwatch_judge_shed_total', help: 'Answers the local judge\'s model did not take (queue_full, rate_budget, waited_too_long, model_not_loaded): scored by the rest of the judge, claim_support skipped.', labelNames: ['judge', 'reason'], registers }),
    judgeQueueDepth: new Gauge({ name: 'ragwatch_judge_queue_depth', help: 'Answers waiting for or in the local judge\'s model (judge.local.maxQueue bounds it).', labelNames: ['judge'], registers }),
    judgeDuration: new Histogram({ name: 'ragwatch_judge_duration_seconds', help: 'Time to score one triplet, by judge kind.', labelNames: ['judge'], buckets: DURATION_BUCKETS, registers }),
    produced: new Counter({ name: 'ragwatch_triplets_produced_total', help: 'Sampled triplets acknowledged by Kafka (collector side of the accounting identity).', registers }),
    received: new Counter({ name: 'ragwatch_triplets_received_total', help: 'Messages read from the triplets topic (scorer side of the accounting identity).', registers }),
    deduplicated: new Counter({ name: 'ragwatch_triplets_deduplicated_total', help: 'Redelivered triplets skipped because their id was scored within the dedupe window.', registers }),
    unsentOutcomes: new Counter({ name: 'ragwatch_scorer_unsent_outcomes_total', help: 'Judgments of a batch cut short before their records were sent (a rebalance, a lost group coordinator), by outcome: kept for the redelivery, reused by it (published without judging again; the redelivery counts as a duplicate), evicted unused (over the bound or the dedupe window: judged again if it comes back).', labelNames: ['outcome'], registers }),
    dlq: new Counter({ name: 'ragwatch_dlq_messages_total', help: 'Messages written to the dead-letter topic, by stage (decode, validate, judge; ingest: an undecodable message of an OTLP topic) and reason.', labelNames: ['stage', 'reason'], registers }),
    kafkaProduceErrors: new Counter({ name: 'ragwatch_kafka_produce_errors_total', help: 'Failed Kafka send attempts (the batch is retried), by topic.', labelNames: ['topic'], registers }),
    kafkaConnectionErrors: new Counter({ name: 'ragwatch_kafka_connection_errors_total', help: 'Failed Kafka connections and requests, by cause: authentication (SASL), tls (certificate, handshake), authorization (ACLs), unreachable (refused, timeout), unavailable (a leader or coordinator moving), closed (by the broker), other. Each failure is retried with backoff.', labelNames: ['reason'], registers }),
    kafkaRefusedBatches: new Counter({
      name: 'ragwatch_kafka_refused_batches_total',
      help: 'Kafka record batches a consumer of this process did not decompress, by codec (gzip, snappy, lz4, zstd) and reason (batch_too_large: it would inflate past the consumer\'s maxBatchBytes, a decompression bomb; bad_compression: malformed). Their records went to the DLQ or were skipped; the partition moved on.',
      labelNames: ['codec', 'reason'],
      registers,
      collect() {
        // The codecs are shared by every consumer of the process (kafkajs' codec table): read their tally.
        this.reset();
        for (const { codec, reason, count } of refusedBatchCounts()) this.inc({ codec, reason }, count);
      },
    }),
    kafkaProducerBuffer: new Gauge({ name: 'ragwatch_kafka_producer_buffer_messages', help: 'Messages buffered in the Kafka producer waiting for acknowledgement, by topic.', labelNames: ['topic'], registers }),
    kafkaConsumerLag: new Gauge({ name: 'ragwatch_kafka_consumer_lag_messages', help: 'High watermark minus the committed offset, per assigned partition.', labelNames: ['topic', 'partition'], registers }),
    kafkaPaused: new Gauge({ name: 'ragwatch_kafka_partitions_paused', help: 'Partitions paused for judge back-pressure (429/Retry-After).', registers }),
    kafkaAssigned: new Gauge({ name: 'ragwatch_kafka_partitions_assigned', help: 'Partitions of the triplets topic assigned to this scorer by the consumer group.', registers }),
    judgeRequests: new Counter({ name: 'ragwatch_judge_requests_total', help: 'HTTP requests to the LLM judge endpoint, by outcome (ok, rate_limited, server_error, timeout, network_error, client_error, circuit_open).', labelNames: ['outcome'], registers }),
    judgeTokens: new Counter({ name: 'ragwatch_judge_tokens_total', help: 'Tokens used by LLM judge calls, by type (input, output).', labelNames: ['type'], registers }),
    judgeRequestDuration: new Histogram({ name: 'ragwatch_judge_request_duration_seconds', help: 'Duration of one HTTP request to the LLM judge endpoint.', labelNames: ['outcome'], buckets: DURATION_BUCKETS, registers }),
    judgeAnswers: new Counter({ name: 'ragwatch_judge_answers_total', help: 'Answers of the LLM judge to one step (decompose, response_match, source_match, same_answer, evaluators, exam steps), by step and outcome: valid_first_try, valid_after_repair, invalid_after_repair.', labelNames: ['step', 'outcome'], registers }),
    judgeFailures: new Counter({ name: 'ragwatch_judge_failures_total', help: 'LLM judge steps that gave no verdict, by step and reason (malformed, truncated, timeout, rate_limited, server_error, unreachable, rejected, context_exceeded, circuit_open): the triplet is failed or the metric skipped, never scored.', labelNames: ['step', 'reason'], registers }),
    judgeLastFailure: new Gauge({ name: 'ragwatch_judge_last_failure_timestamp_seconds', help: 'When an LLM judge step last gave no verdict, by step and reason (Unix seconds).', labelNames: ['step', 'reason'], registers }),
    judgeAdaptations: new Counter({ name: 'ragwatch_judge_adaptations_total', help: 'Changes made once to the judge requests after the endpoint refused a part of them (output:json_object_schema, output:json_object, output:prompt_only, seed:dropped, strict:dropped, temperature:dropped, frequency_penalty:dropped).', labelNames: ['change'], registers }),
    judgeCost: new Counter({ name: 'ragwatch_judge_cost_total', help: 'Estimated cost of LLM judge calls from the configured price table (judge.llm.prices), in its currency.', labelNames: ['model'], registers }),
  };
}

/** Every instrument the pipeline records into. */
export type Instruments = ReturnType<typeof createInstruments>;

/** `createInstruments` options implied by the configuration (score buckets at every threshold and categorical evaluator value, service bound). */
export function instrumentsOptionsFromConfig(config: RagwatchConfig): InstrumentsOptions {
  return {
    processMetrics: config.metrics.processMetrics,
    scoreThresholds: [...Object.values(config.alerts.metrics).map((a) => a.threshold), ...config.evaluators.flatMap((e) => e.output?.labels?.map((l) => l.value) ?? [])],
    services: config.metrics.services,
    maxServices: config.metrics.maxServices,
  };
}

/**
 * Wires the stages of one process: capture → sampling → transport → scorer → metrics.
 * `ragwatch start` and the in-process span processor both run this.
 * @module
 */
import { Capture } from './capture/capture.ts';
import type { CapturedLog, CapturedSpan, GenerationOutcome } from './capture/types.ts';
import type { RagwatchConfig } from './config/schema.ts';
import { EmbeddedJudge } from './judges/embedded/embedded-judge.ts';
import { EndpointEmbedder } from './judges/llm/endpoint-embedder.ts';
import { LlmJudge } from './judges/llm/llm-judge.ts';
import type { Judge } from './judges/types.ts';
import { createInstruments, type Instruments } from './metrics/instruments.ts';
import { instrumentsOptionsFromConfig } from './metrics/quality.ts';
import { RateSampler } from './sampling/rate.ts';
import type { Sampler } from './sampling/types.ts';
import { Scorer } from './scorer/scorer.ts';
import { MemoryTransport } from './transport/memory.ts';
import type { SampledTriplet, ScoreRecord, Triplet } from './triplet.ts';

/** Options of {@link Pipeline}; only `config` is required. */
export interface PipelineOptions {
  config: RagwatchConfig;
  /** Judge to use; default from `config.judge`. */
  judge?: Judge;
  sampler?: Sampler;
  instruments?: Instruments;
  /** Receives every ScoreRecord. */
  onRecord?: (record: ScoreRecord, triplet: SampledTriplet) => void;
  /** Receives every capture outcome (triplet or incomplete). */
  onOutcome?: (outcome: GenerationOutcome) => void;
}

/**
 * Builds the judge named by the configuration (`judge.kind`, which defaults to `llm` when an
 * endpoint is configured, else `embedded`). Judge usage series go to `options.instruments`.
 */
export function createJudge(config: RagwatchConfig, options: { instruments?: Instruments } = {}): Judge {
  const j = config.judge;
  if (j.kind === 'embedded') return new EmbeddedJudge({ similarityThreshold: j.embedded.similarityThreshold });
  const { embeddings, embeddingModel, ...llm } = j.llm;
  const endpoint = { ...(j.baseUrl !== undefined ? { baseUrl: j.baseUrl } : {}), ...(j.apiKey !== undefined ? { apiKey: j.apiKey } : {}) };
  return new LlmJudge({
    ...llm,
    ...(embeddings === 'endpoint' ? { embedder: new EndpointEmbedder({ ...endpoint, model: embeddingModel, timeoutMs: llm.timeoutMs }) } : {}),
    model: j.model,
    ...(j.baseUrl !== undefined ? { baseUrl: j.baseUrl } : {}),
    ...(j.apiKey !== undefined ? { apiKey: j.apiKey } : {}),
    similarityThreshold: j.embedded.similarityThreshold,
    ...(options.instruments ? { instruments: options.instruments } : {}),
  });
}

export class Pipeline {
  readonly config: RagwatchConfig;
  readonly instruments: Instruments;
  readonly capture: Capture;
  readonly sampler: Sampler;
  readonly transport: MemoryTransport;
  readonly judge: Judge;
  readonly scorer: Scorer;
  #started: Promise<void> | undefined;
  #shutdown: Promise<void> | undefined;

  constructor(options: PipelineOptions) {
    const { config } = options;
    this.config = config;
    this.instruments = options.instruments ?? createInstruments(instrumentsOptionsFromConfig(config));
    this.sampler = options.sampler ?? new RateSampler(config.sampling.rate);
    this.judge = options.judge ?? createJudge(config, { instruments: this.instruments });
    this.transport = new MemoryTransport({ maxQueueSize: config.transport.maxQueueSize, concurrency: config.judge.concurrency, instruments: this.instruments });
    this.scorer = new Scorer({ judge: this.judge, instruments: this.instruments, ...(options.onRecord ? { onRecord: options.onRecord } : {}) });
    this.capture = new Capture({
      config: config.capture,
      redaction: config.redaction,
      instruments: this.instruments,
      onTriplet: (t) => this.#sample(t),
      ...(options.onOutcome ? { onOutcome: options.onOutcome } : {}),
    });
  }

  /** True when the judge is loaded and the transport is delivering. */
  get ready(): boolean {
    return this.judge.ready && this.#started !== undefined;
  }

  /** Loads the judge and starts delivery. Idempotent. */
  start(): Promise<void> {
    this.#started ??= (async () => {
      await this.judge.init();
      await this.transport.start(this.scorer.handle);
    })();
    return this.#started;
  }

  /** Feeds finished spans into capture. Never throws. */
  ingestSpans(spans: readonly CapturedSpan[], source: 'otlp' | 'processor'): void {
    this.capture.addSpans(spans, source);
  }

  /** Feeds log records (GenAI content events) into capture. Never throws. */
  ingestLogs(logs: readonly CapturedLog[], source: 'otlp' | 'processor'): void {
    this.capture.addLogs(logs, source);
  }

  /** Assembles buffered traces and waits until everything sampled so far is scored. */
  async forceFlush(): Promise<void> {
    await this.capture.forceFlush();
    // Delivery begins once the judge is loaded; wait for it so "flushed" means "scored".
    if (this.#started) await this.#started.catch(() => undefined);
    await this.transport.forceFlush();
  }

  /** Stops capture, finishes queued scoring within `graceMs`, then stops the judge. Idempotent. */
  shutdown(graceMs: number = this.config.server.shutdownGraceMs): Promise<void> {
    this.#shutdown ??= (async () => {
      await this.capture.shutdown();
      const deadline = new Promise<'timeout'>((resolve) => setTimeout(resolve, graceMs, 'timeout').unref());
      const outcome = await Promise.race([this.transport.shutdown().then(() => 'done' as const), deadline]);
      if (outcome === 'timeout') {
        const rest = this.transport.drainUnhandled();
        if (rest.length > 0) {
          this.instruments.dropped.inc({ stage: 'scorer', reason: 'shutdown' }, rest.length);
          this.instruments.inFlight.dec(rest.length);
        }
      }
      await this.judge.shutdown();
    })();
    return this.#shutdown;
  }

  #sample(triplet: Triplet): void {
    const decision = this.sampler.shouldSample(triplet);
    if (!decision.sampled) {
      this.instruments.notSampled.inc();
      return;
    }
    this.instruments.sampled.inc({ stratum: decision.sampling.stratum });
    this.instruments.inFlight.inc();
    if (!this.transport.send({ ...triplet, sampling: decision.sampling })) this.instruments.inFlight.dec();
  }
}

/**
 * The capture stage: spans in (from OTLP or the in-process processor), assembled per trace,
 * mapped by convention, latency recorded for every generation, triplets out.
 * @module
 */
import { TraceAssembler, type AssemblerDropReason } from './assembler.ts';
import { buildTriplets, type BuildOptions } from './build-triplets.ts';
import { createPromptSourceExtractor } from './mappers/custom.ts';
import { createMappers } from './mappers/index.ts';
import { createRedactor, redactOutcome } from './redaction/redact-outcome.ts';
import type { NonGenerationOperation } from './operation.ts';
import type { TripletRedactor } from './redaction/types.ts';
import type { CapturedLog, CapturedSpan, ConventionMapper, GenerationOutcome, SpanSource } from './types.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import type { Instruments } from '../telemetry/instruments.ts';
import { LabelBound } from '../telemetry/label-bound.ts';
import type { Convention, Triplet } from '../triplet.ts';

/** Options of {@link Capture}. */
export interface CaptureOptions {
  config: RagwatchConfig['capture'];
  instruments: Instruments;
  /** Receives every captured triplet (sampling happens there). Must not throw. */
  onTriplet: (triplet: Triplet) => void;
  /** Receives every outcome, including incomplete ones (for `extract --explain`). */
  onOutcome?: (outcome: GenerationOutcome) => void;
  mappers?: readonly ConventionMapper[];
  /**
   * Told of every trace assembled: its spans in this assembly, the names of a few, and how many
   * generations gave an outcome (0: no generation span — a retriever alone, say). Must not throw.
   */
  onAssembled?: (traceId: string, spans: number, generations: number, spanNames: readonly string[]) => void;
  /** Told of every span (or log record) the trace buffer dropped, with its trace id and why (counted in `ragwatch_triplets_dropped_total{stage="capture"}`). Must not throw. */
  onDropped?: (traceId: string, reason: AssemblerDropReason) => void;
  /** Told of every model-call span that is not a generation (counted as `ignored`, never a triplet). */
  onIgnored?: (span: CapturedSpan, operation: NonGenerationOperation) => void;
  /** PII redaction policy (the `redaction` config section). Default: every built-in recognizer on. */
  redaction?: RagwatchConfig['redaction'];
  /** Spans come redacted with that policy already (the assembler reading collectors' span records). Default false. */
  textRedacted?: boolean;
  /** Sweep period, milliseconds. Default: a quarter of `traceIdleMs`, at least 50. */
  sweepIntervalMs?: number;
  /**
   * Attributes copied onto every triplet (`Triplet.attributes`) for sampling rules and strata:
   * `samplingAttributeKeys(config)`. They must be allowed by the redaction policy (`redactionForPipeline`)
   * or redaction drops them. Default none.
   */
  attributeKeys?: readonly string[];
}

export class Capture {
  readonly #assembler: TraceAssembler;
  readonly #instruments: Instruments;
  readonly #build: BuildOptions;
  readonly #onTriplet: (t: Triplet) => void;
  readonly #onOutcome: ((o: GenerationOutcome) => void) | undefined;
  readonly #onAssembled: CaptureOptions['onAssembled'];
  readonly #onDropped: CaptureOptions['onDropped'];
  /** Why the assembler dropped the last item it refused (it tells the reason, `add` only that it dropped). */
  #lastDrop: AssemblerDropReason = 'max_traces';
  readonly #redactor: TripletRedactor;
  readonly #services = new LabelBound(50);
  readonly #models = new LabelBound(50);
  /** Route label of the latency histograms: `capture.routes` when given, else the first 20 routes seen. */
  readonly #routes: LabelBound;
  #timer: NodeJS.Timeout | undefined;
  readonly #maxBufferedSpans: number | undefined;
  /**
   * Generations seen and triplets captured since the last publish, by convention. Assembly is
   * synchronous, so counting per sweep instead of per triplet changes nothing a scrape can see.
   */
  readonly #seen = new Map<Convention, number>();
  readonly #captured = new Map<Convention, number>();

  constructor(options: CaptureOptions) {
    const c = options.config;
    this.#maxBufferedSpans = c.maxBufferedSpans;
    this.#instruments = options.instruments;
    this.#onTriplet = options.onTriplet;
    this.#routes = new LabelBound(20, c.routes);
    this.#onOutcome = options.onOutcome;
    this.#onAssembled = options.onAssembled;
    this.#onDropped = options.onDropped;
    this.#redactor = createRedactor(options.redaction, { textRedacted: options.textRedacted ?? false });
    this.#build = {
      mappers: options.mappers ?? createMappers(c.custom),
      defaultService: c.defaultService,
      maxTextChars: c.maxTextChars,
      conversation: c.conversation,
      ...(options.attributeKeys && options.attributeKeys.length > 0 ? { attributeKeys: options.attributeKeys } : {}),
      onIgnored: (span, operation) => {
        this.#instruments.ignoredSpans.inc({ reason: 'not_generation', operation });
        options.onIgnored?.(span, operation);
      },
    };
    const promptSources = createPromptSourceExtractor(c.custom);
    if (promptSources) this.#build.promptSources = promptSources;
    this.#assembler = new TraceAssembler(
      { maxTraces: c.maxTraces, maxSpansPerTrace: c.maxSpansPerTrace, maxBufferedSpans: c.maxBufferedSpans, traceIdleMs: c.traceIdleMs, traceMaxAgeMs: c.traceMaxAgeMs, joinAttributes: c.joinAttributes, joinLinks: c.joinLinks },
      (spans, logs, contextOnly) => this.#assemble(spans, logs, contextOnly),
      (reason) => {
        this.#lastDrop = reason;
        this.#instruments.dropped.inc({ stage: 'capture', reason });
      },
      () => this.#instruments.lateSpans.inc(),
    );
    const interval = options.sweepIntervalMs ?? Math.max(50, Math.floor(c.traceIdleMs / 4));
    this.#timer = setInterval(() => this.#assembleWith(() => this.#assembler.sweep()), interval);
    this.#timer.unref();
    this.#instruments.queueCapacity.set({ stage: 'capture_traces' }, c.maxTraces);
  }

  /** Share of `capture.maxBufferedSpans` held by traces waiting for assembly (0 when unbounded). */
  get fullness(): number {
    const max = this.#maxBufferedSpans;
    return max ? this.#assembler.bufferedItems / max : 0;
  }

  /**
   * The value attribute `key` holding `value` has on this capture's triplets (its pseudonym for an
   * `hmacAttributes` identifier): how a sampler compares the values it is configured with. Never throws.
   */
  pseudonymOf(key: string, value: string | number | boolean): string | number | boolean {
    return this.#redactor.pseudonymOf(key, value);
  }

  /** Buffers spans for assembly. Never throws. */
  addSpans(spans: readonly CapturedSpan[], source: SpanSource): void {
    this.#instruments.spansReceived.inc({ source }, spans.length);
    const onDropped = this.#onDropped;
    if (!onDropped) for (const span of spans) this.#assembler.add(span);
    else for (const span of spans) if (!this.#assembler.add(span)) this.#tellDropped(onDropped, span.traceId);
    this.#instruments.queueSize.set({ stage: 'capture_traces' }, this.#assembler.size);
  }

  /** Buffers log records (GenAI content events) to be joined with their spans. Never throws. */
  addLogs(logs: readonly CapturedLog[], source: SpanSource): void {
    this.#instruments.logsReceived.inc({ source }, logs.length);
    const onDropped = this.#onDropped;
    for (const log of logs) if (!this.#assembler.addLog(log) && onDropped && log.traceId) this.#tellDropped(onDropped, log.traceId);
    this.#instruments.queueSize.set({ stage: 'capture_traces' }, this.#assembler.size);
  }

  /** True while spans of `traceId` wait to be assembled (the assembler commits offsets past a trace only once it is not). */
  isBuffered(traceId: string): boolean {
    return this.#assembler.isBuffered(traceId);
  }

  /** Lets buffered traces go unassembled (their records are read again after a rebalance); returns the spans and logs let go. */
  release(traceIds: Iterable<string>): number {
    const released = this.#assembler.release(traceIds);
    this.#instruments.queueSize.set({ stage: 'capture_traces' }, this.#assembler.size);
    return released;
  }

  /** Assembles every buffered trace now. */
  forceFlush(): Promise<void> {
    this.#assembleWith(() => this.#assembler.flushAll());
    return Promise.resolve();
  }

  /** Runs a sweep or flush of the assembler, then publishes the counts and queue size it changed. */
  #assembleWith(run: () => void): void {
    try {
      run();
    } finally {
      for (const [convention, n] of this.#seen) this.#instruments.generationsSeen.inc({ convention }, n);
      for (const [convention, n] of this.#captured) this.#instruments.captured.inc({ convention }, n);
      this.#seen.clear();
      this.#captured.clear();
      this.#instruments.queueSize.set({ stage: 'capture_traces' }, this.#assembler.size);
    }
  }

  /** Stops the sweep timer and assembles what is buffered. Idempotent. */
  shutdown(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    const flushed = this.forceFlush();
    this.#assembler.clearRecent();
    return flushed;
  }

  #assemble(spans: CapturedSpan[], logs: CapturedLog[], contextOnly: ReadonlySet<string>): void {
    let outcomes: GenerationOutcome[];
    try {
      outcomes = buildTriplets(spans, this.#build, logs, contextOnly);
    } catch {
      // A mapper bug must never take the pipeline down: count it and move on.
      this.#instruments.dropped.inc({ stage: 'capture', reason: 'mapper_error' }, spans.length);
      return;
    }
    if (this.#onAssembled) this.#tellAssembled(spans, outcomes);
    for (const raw of outcomes) {
      this.#seen.set(raw.mapper, (this.#seen.get(raw.mapper) ?? 0) + 1);
      // PII is replaced here, before the triplet reaches any sink (DESIGN §6); undefined = dropped, counted.
      const outcome = redactOutcome(raw, this.#redactor, this.#instruments);
      if (!outcome) continue;
      this.#onOutcome?.(outcome);
      if (outcome.kind === 'incomplete') {
        this.#instruments.incomplete.inc({ missing: outcome.missing[0] });
        continue;
      }
      const t = outcome.triplet;
      this.#captured.set(t.convention, (this.#captured.get(t.convention) ?? 0) + 1);
      this.#recordLatency(t);
      const cut = t.conversation?.cut;
      if (cut) {
        if (cut.turns > 0) this.#instruments.historyCut.inc({ unit: 'messages' }, cut.turns);
        if (cut.chars > 0) this.#instruments.historyCut.inc({ unit: 'characters' }, cut.chars);
      }
      this.#onTriplet(t);
    }
  }

  #tellDropped(onDropped: NonNullable<CaptureOptions['onDropped']>, traceId: string): void {
    try {
      onDropped(traceId, this.#lastDrop);
    } catch {
      // Told, never obeyed.
    }
  }

  /** Per trace of an assembly: its spans, a few names, and its generations' outcomes (for the trail). */
  #tellAssembled(spans: readonly CapturedSpan[], outcomes: readonly GenerationOutcome[]): void {
    const traces = new Map<string, { spans: number; names: string[]; generations: number }>();
    for (const s of spans) {
      let t = traces.get(s.traceId);
      if (!t) traces.set(s.traceId, (t = { spans: 0, names: [], generations: 0 }));
      t.spans++;
      if (t.names.length < 4 && !t.names.includes(s.name)) t.names.push(s.name);
    }
    for (const o of outcomes) {
      const t = traces.get(o.kind === 'triplet' ? o.triplet.traceId : o.traceId);
      if (t) t.generations++;
    }
    try {
      for (const [traceId, t] of traces) this.#onAssembled!(traceId, t.spans, t.generations, t.names);
    } catch {
      // The trail is told, never obeyed: nothing it does may stop capture.
    }
  }

  #recordLatency(t: Triplet): void {
    const labels: Record<string, string> = { service: this.#services.get(t.service), model: this.#models.get(t.model) };
    // Only generations with a route carry the label (dashboards filter with route=~"$route").
    if (t.route !== undefined) labels.route = this.#routes.get(t.route);
    const { ttftMs, tpotMs, durationMs, outputTokens } = t.latency;
    this.#instruments.duration.observe(labels, durationMs / 1000);
    if (ttftMs !== undefined) this.#instruments.ttft.observe(labels, ttftMs / 1000);
    if (tpotMs !== undefined) this.#instruments.tpot.observe(labels, tpotMs / 1000);
    if (outputTokens !== undefined) this.#instruments.outputTokens.observe(labels, outputTokens);
  }
}

/**
 * The queue every evaluation writer shares, modelled on the OTel SDK's batch processor: a bounded
 * queue (the newest results are dropped and counted when it is full), batches sent when full or after
 * `scheduledDelayMs`, one batch in flight at a time, and a shutdown that sends what it can within its
 * grace period and counts the rest. `write` only pushes onto an array: scoring never waits for a
 * receiver, however dead or slow.
 * @module
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { EvaluationResult, EvaluationWriter } from './types.ts';

/** Why results were dropped (the `reason` label). */
export type DropReason = 'queue_full' | 'rejected' | 'retries_exhausted' | 'shutdown' | 'partial_rejected' | 'redaction_error';

/** How a writer settled some results: `sent`, or not delivered (`failed` by the receiver, `dropped` here) with the reason. */
export type ExportSettlement = { status: 'sent' } | { status: 'failed' | 'dropped'; reason: DropReason };

/**
 * Told how each batch of results settled, by writer (the answer page's trail). A batch partly delivered
 * is told as `failed` with its reason. Must not throw; errors are swallowed.
 */
export type ExportSettled = (writer: string, results: readonly EvaluationResult[], settlement: ExportSettlement) => void;

/** The export counters of a process, shared by its writers (one registration per registry). */
export class ExportInstruments {
  readonly exported: Counter<'writer'>;
  readonly dropped: Counter<'writer' | 'reason'>;
  readonly retries: Counter<'writer'>;
  readonly queueSize: Gauge<'writer'>;
  /** Told how results settled (set by the role that keeps a trail). */
  onSettled: ExportSettled | undefined;

  /** Tells {@link onSettled}; never throws. */
  settle(writer: string, results: readonly EvaluationResult[], settlement: ExportSettlement): void {
    if (!this.onSettled || results.length === 0) return;
    try {
      this.onSettled(writer, results, settlement);
    } catch {
      // A listener's bug must not stop the export.
    }
  }

  constructor(registry: Registry) {
    const registers = [registry];
    this.exported = new Counter({ name: 'ragwatch_evaluation_exported_total', help: 'Evaluation results accepted by the receiver, by writer (otlp, phoenix, langfuse): docs/evaluation-export.md.', labelNames: ['writer'], registers });
    this.dropped = new Counter({ name: 'ragwatch_evaluation_export_dropped_total', help: 'Evaluation results not delivered, by writer and reason (queue_full, rejected, retries_exhausted, partial_rejected, shutdown, redaction_error).', labelNames: ['writer', 'reason'], registers });
    this.retries = new Counter({ name: 'ragwatch_evaluation_export_retries_total', help: 'Export requests retried (retryable status, network error, Retry-After / RetryInfo honoured), by writer.', labelNames: ['writer'], registers });
    this.queueSize = new Gauge({ name: 'ragwatch_evaluation_export_queue_size', help: 'Evaluation results waiting to be sent, by writer (bounded by its maxQueueSize).', labelNames: ['writer'], registers });
  }

  /** Sets every series of a writer to zero, so dashboards see it before the first result. */
  register(writer: string): void {
    this.exported.inc({ writer }, 0);
    this.retries.inc({ writer }, 0);
    for (const reason of ['queue_full', 'rejected', 'retries_exhausted', 'shutdown'] as const) this.dropped.inc({ writer, reason }, 0);
    this.queueSize.set({ writer }, 0);
  }
}

/** How one batch went: how many were delivered, and why the rest were not. */
export interface BatchOutcome {
  exported: number;
  dropped: Array<{ count: number; reason: DropReason }>;
}

/** Options of {@link BatchWriter}. */
export interface BatchWriterOptions {
  name: string;
  instruments: ExportInstruments;
  maxQueueSize: number;
  maxBatchSize: number;
  scheduledDelayMs: number;
  /** Sends one batch (retries included); `signal` aborts at the end of shutdown's grace. Must not reject. */
  exportBatch: (batch: readonly EvaluationResult[], signal: AbortSignal) => Promise<BatchOutcome>;
  /** Time shutdown gives the queue to drain before it drops the rest, milliseconds. Default 4000. */
  shutdownGraceMs?: number;
  /** Told once when the queue first overflows, with the writer's name (a log line). */
  onFirstDrop?: (name: string) => void;
  /** Called once shutdown has sent or dropped everything (closes the writer's connections). */
  onClosed?: () => void;
}

export class BatchWriter implements EvaluationWriter {
  readonly name: string;
  readonly #o: BatchWriterOptions;
  #queue: EvaluationResult[] = [];
  #timer: NodeJS.Timeout | undefined;
  #immediate: NodeJS.Immediate | undefined;
  #sending: Promise<void> | undefined;
  #stopped = false;
  #warned = false;
  readonly #abort = new AbortController();
  #shutdown: Promise<void> | undefined;

  constructor(options: BatchWriterOptions) {
    this.#o = options;
    this.name = options.name;
    options.instruments.register(options.name);
  }

  /** Results waiting now. */
  get queued(): number {
    return this.#queue.length;
  }

  write(results: readonly EvaluationResult[]): void {
    const o = this.#o;
    if (this.#stopped) {
      if (results.length > 0) o.instruments.dropped.inc({ writer: this.name, reason: 'shutdown' }, results.length);
      o.instruments.settle(this.name, results, { status: 'dropped', reason: 'shutdown' });
      return;
    }
    const room = Math.max(0, o.maxQueueSize - this.#queue.length);
    for (let i = 0; i < results.length && i < room; i++) this.#queue.push(results[i]!);
    if (results.length > room) {
      o.instruments.dropped.inc({ writer: this.name, reason: 'queue_full' }, results.length - room);
      o.instruments.settle(this.name, results.slice(room), { status: 'dropped', reason: 'queue_full' });
      if (!this.#warned) {
        this.#warned = true;
        o.onFirstDrop?.(this.name);
      }
    }
    o.instruments.queueSize.set({ writer: this.name }, this.#queue.length);
    // A full batch is sent from the event loop, never from inside the caller's `write` (the scoring path).
    if (this.#queue.length >= o.maxBatchSize) {
      if (!this.#immediate && !this.#sending) this.#immediate = setImmediate(() => this.#kick());
    } else if (!this.#timer && !this.#sending && this.#queue.length > 0) {
      this.#timer = setTimeout(() => this.#kick(), o.scheduledDelayMs);
      this.#timer.unref();
    }
  }

  /** Starts sending unless a batch is already in flight (which continues with the rest). */
  #kick(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    clearImmediate(this.#immediate);
    this.#immediate = undefined;
    this.#sending ??= this.#drain().finally(() => {
      this.#sending = undefined;
      // Results written while the last batch was in flight wait for the next kick (full batch or timer).
      if (this.#queue.length > 0 && !this.#stopped) this.write([]);
    });
  }

  async #drain(): Promise<void> {
    const o = this.#o;
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, o.maxBatchSize);
      o.instruments.queueSize.set({ writer: this.name }, this.#queue.length);
      if (this.#abort.signal.aborted) {
        o.instruments.dropped.inc({ writer: this.name, reason: 'shutdown' }, batch.length);
        o.instruments.settle(this.name, batch, { status: 'dropped', reason: 'shutdown' });
        continue;
      }
      let outcome: BatchOutcome;
      try {
        outcome = await o.exportBatch(batch, this.#abort.signal);
      } catch {
        outcome = { exported: 0, dropped: [{ count: batch.length, reason: 'rejected' }] };
      }
      if (outcome.exported > 0) o.instruments.exported.inc({ writer: this.name }, outcome.exported);
      for (const d of outcome.dropped) if (d.count > 0) o.instruments.dropped.inc({ writer: this.name, reason: d.reason }, d.count);
      const lost = outcome.dropped.find((d) => d.count > 0);
      o.instruments.settle(this.name, batch, lost ? { status: 'failed', reason: lost.reason } : { status: 'sent' });
      // A full queue refills while a batch is in flight: go on only while whole batches wait, else let the timer gather.
      if (this.#queue.length < o.maxBatchSize && !this.#stopped && !this.#flushing) break;
    }
  }

  #flushing = false;

  async forceFlush(): Promise<void> {
    this.#flushing = true;
    try {
      while (this.#queue.length > 0 || this.#sending) {
        if (!this.#sending) this.#kick();
        await this.#sending;
      }
    } finally {
      this.#flushing = false;
    }
  }

  shutdown(): Promise<void> {
    return (this.#shutdown ??= (async () => {
      this.#stopped = true;
      clearTimeout(this.#timer);
      clearImmediate(this.#immediate);
      const grace = this.#o.shutdownGraceMs ?? 4_000;
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, grace);
        timer.unref();
      });
      await Promise.race([this.forceFlush(), deadline]);
      clearTimeout(timer);
      // Past the grace: the batch in flight gives up its retries, the rest is counted as dropped.
      this.#abort.abort();
      await this.#sending;
      if (this.#queue.length > 0) {
        this.#o.instruments.dropped.inc({ writer: this.name, reason: 'shutdown' }, this.#queue.length);
        this.#o.instruments.settle(this.name, this.#queue, { status: 'dropped', reason: 'shutdown' });
        this.#queue = [];
      }
      this.#o.instruments.queueSize.set({ writer: this.name }, 0);
      this.#o.onClosed?.();
    })());
  }
}

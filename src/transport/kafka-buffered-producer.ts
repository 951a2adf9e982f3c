/**
 * A bounded, batching Kafka producer on kafkajs (which has no linger): messages are appended to
 * a buffer (never blocking the caller), sent with `send` in batches (acks=all, compression), and
 * retried with backoff until the broker is back. When the buffer is full the newest message is
 * dropped and reported. With `idempotent` a failed batch is first retried inside kafkajs with its
 * sequence numbers for `retryWindowMs`, so the broker writes it once even when an acknowledgement
 * was lost in a failover. After repeated failures the kafkajs producer is recreated, so a cluster
 * that comes back on the same address is picked up without a restart.
 * @module
 */
import { CompressionTypes, type Kafka, type Message, type Producer } from 'kafkajs';
import { classifyKafkaError } from './kafka-errors.ts';
import { recordingPartitioner, unacknowledged, UnacknowledgedSendError, type PartitionChoices } from './kafka-send-coverage.ts';
import { Murmur2Partitioner } from './murmur2-partitioner.ts';
import { errorMessage } from '../errors.ts';
import { silentLogger, type Logger } from '../log.ts';

/** Options of {@link BufferedKafkaProducer}; everything but `kafka` and `topic` optional. */
export interface BufferedKafkaProducerOptions {
  kafka: Kafka;
  topic: string;
  /** Buffer bound, messages. Default 10000. */
  maxBufferMessages?: number;
  /** Most messages per request. Default 500. */
  batchMaxMessages?: number;
  /** Longest wait for a batch to fill, milliseconds. Default 20. */
  lingerMs?: number;
  /** Default `gzip`. */
  compression?: 'gzip' | 'none';
  /** Broker acknowledgement timeout, milliseconds. Default 10000. */
  requestTimeoutMs?: number;
  /** Longest backoff between retries, milliseconds. Default 2000. */
  maxRetryBackoffMs?: number;
  /** Idempotent producer (acks=all, retries with the same sequence numbers). Default false. */
  idempotent?: boolean;
  /** With `idempotent`: how long kafkajs retries a failed batch before it comes back here, milliseconds. Default 30000. */
  retryWindowMs?: number;
  /** Batches sent at once (kafkajs pipelines them on its connections). Default 2; always 1 with `idempotent`. */
  maxInFlightBatches?: number;
  /** Called with the number of messages acknowledged by the broker. Must not throw. */
  onDelivered?: (count: number) => void;
  /** Called with the number of messages dropped and why (`buffer_full`, `shutdown`). Must not throw. */
  onDropped?: (count: number, reason: string) => void;
  /** Called on every failed send attempt. Must not throw. */
  onSendError?: (error: unknown) => void;
  /** Called whenever the buffer depth changes. Must not throw. */
  onDepth?: (depth: number) => void;
  logger?: Logger;
}

/** Consecutive failures after which the kafkajs producer is thrown away and recreated. */
const RECREATE_AFTER_FAILURES = 3;
/** Sends of the messages kafkajs left unacknowledged before the batch counts as failed. */
const UNACKNOWLEDGED_ROUNDS = 5;
/** First retry delay of kafkajs' own retries, milliseconds. */
const INITIAL_RETRY_MS = 100;

/** kafkajs retries (doubling from {@link INITIAL_RETRY_MS} up to `maxBackoffMs`) that span `windowMs`. */
export function retriesWithin(windowMs: number, maxBackoffMs: number): number {
  let delay = INITIAL_RETRY_MS;
  let total = 0;
  let n = 0;
  while (total < windowMs) {
    total += delay;
    delay = Math.min(delay * 2, maxBackoffMs);
    n++;
  }
  return n;
}

/** Bounded, batching, self-healing kafkajs producer; `enqueue` never blocks. */
export class BufferedKafkaProducer {
  readonly #kafka: Kafka;
  readonly #topic: string;
  readonly #max: number;
  readonly #batchMax: number;
  readonly #lingerMs: number;
  readonly #compression: CompressionTypes;
  readonly #timeoutMs: number;
  readonly #maxBackoffMs: number;
  readonly #opts: BufferedKafkaProducerOptions;
  readonly #logger: Logger;
  #producer: Producer;
  /** Where kafkajs put each message of the current send (checked against its answer). */
  readonly #assigned: PartitionChoices = new WeakMap();
  #connected = false;
  #buffer: Message[] = [];
  #head = 0;
  readonly #maxInFlight: number;
  #activeSends = 0;
  #inFlightMessages = 0;
  #backoffUntilMs = 0;
  /** Set once the shutdown deadline passed: failed batches are dropped instead of requeued. */
  #abandoned = false;
  /** Batches being sent; `settled` once counted (delivered, requeued or dropped). */
  readonly #sends = new Set<{ size: number; settled: boolean }>();
  #timer: NodeJS.Timeout | undefined;
  #failures = 0;
  /** The end of the last send queued through an idempotent producer. */
  #serial: Promise<void> = Promise.resolve();
  #lastReason: string | undefined;
  #closed = false;
  #idleWaiters: Array<() => void> = [];
  #shutdown: Promise<void> | undefined;

  constructor(options: BufferedKafkaProducerOptions) {
    this.#opts = options;
    this.#kafka = options.kafka;
    this.#topic = options.topic;
    this.#max = options.maxBufferMessages ?? 10_000;
    this.#batchMax = options.batchMaxMessages ?? 500;
    this.#lingerMs = options.lingerMs ?? 20;
    this.#compression = (options.compression ?? 'gzip') === 'gzip' ? CompressionTypes.GZIP : CompressionTypes.None;
    this.#timeoutMs = options.requestTimeoutMs ?? 10_000;
    this.#maxBackoffMs = options.maxRetryBackoffMs ?? 2_000;
    // kafkajs keeps one sequence counter per partition and rolls it back when a send fails; two sends
    // to a partition whose leader is moving run under two brokers' locks and can interleave, which
    // writes a batch twice under two sequences (seen as duplicate score records in a failover test).
    this.#maxInFlight = options.idempotent ? 1 : (options.maxInFlightBatches ?? 2);
    this.#logger = options.logger ?? silentLogger;
    this.#producer = this.#newProducer();
  }

  /** Messages buffered, including the batches being sent. */
  get depth(): number {
    return this.#queued + this.#inFlightMessages;
  }

  get #queued(): number {
    return this.#buffer.length - this.#head;
  }

  /** True while the kafkajs producer is connected. */
  get connected(): boolean {
    return this.#connected;
  }

  /** Consecutive failed send attempts (0 when the last one succeeded). */
  get failures(): number {
    return this.#failures;
  }

  /** Appends a message; false (and `onDropped`) when the buffer is full or the producer is shut down. Never throws. */
  enqueue(message: Message): boolean {
    if (this.#closed) {
      this.#opts.onDropped?.(1, 'shutdown');
      return false;
    }
    if (this.depth >= this.#max) {
      this.#opts.onDropped?.(1, 'buffer_full');
      return false;
    }
    this.#buffer.push(message);
    this.#opts.onDepth?.(this.depth);
    this.#schedule(this.depth >= this.#batchMax ? 0 : this.#lingerMs);
    return true;
  }

  /** Connects eagerly (optional: sending connects on demand). Rejects when the cluster is unreachable. */
  async connect(): Promise<void> {
    if (this.#connected) return;
    await this.#producer.connect();
    this.#connected = true;
  }

  /** Sends now, bypassing the buffer, and resolves once acknowledged (acks=all). Throws on failure. */
  async sendNow(topic: string, messages: Message[]): Promise<void> {
    if (messages.length === 0) return;
    if (!this.#opts.idempotent) return this.#send(topic, messages);
    // One send at a time through an idempotent producer (see the constructor).
    const previous = this.#serial;
    let done!: () => void;
    this.#serial = new Promise((resolve) => (done = resolve));
    try {
      await previous;
      await this.#send(topic, messages);
    } finally {
      done();
    }
  }

  async #send(topic: string, messages: Message[]): Promise<void> {
    await this.connect();
    let rest = messages;
    for (let round = 1; ; round++) {
      const answer = await this.#producer.send({ topic, messages: rest, acks: -1, compression: this.#compression, timeout: this.#timeoutMs });
      const missing = unacknowledged(topic, rest, answer, this.#assigned);
      if (missing.length === 0) return;
      // Sent again alone: the acknowledged ones must not be written twice.
      this.#logger.warn({ topic, messages: missing.length, of: rest.length, round }, 'kafka send left messages unacknowledged (a partition leader moved during the send); sending them again');
      this.#opts.onSendError?.(new UnacknowledgedSendError(topic, missing.length, round));
      if (round >= UNACKNOWLEDGED_ROUNDS) throw new UnacknowledgedSendError(topic, missing.length, round);
      rest = missing;
    }
  }

  /** Resolves when the buffer is empty (everything acknowledged or dropped). */
  forceFlush(): Promise<void> {
    if (this.depth === 0) return Promise.resolve();
    this.#schedule(0);
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  /**
   * Stops accepting, tries to deliver what is buffered for up to `deadlineMs`, drops (and reports)
   * the rest, then disconnects. Idempotent.
   */
  shutdown(deadlineMs = 5_000): Promise<void> {
    this.#shutdown ??= (async () => {
      this.#closed = true;
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, deadlineMs)));
      await Promise.race([this.forceFlush(), deadline]);
      clearTimeout(timer);
      if (this.#timer) clearTimeout(this.#timer);
      this.#timer = undefined;
      // Batches still in flight settle by their own outcome (a failure from now on counts as a shutdown drop).
      this.#abandoned = true;
      const rest = this.#queued;
      if (rest > 0) {
        this.#buffer = [];
        this.#head = 0;
        this.#opts.onDropped?.(rest, 'shutdown');
        this.#opts.onDepth?.(this.depth);
      }
      await this.#disconnect(this.#producer);
      // A send stuck past the disconnect is counted as dropped now; its late outcome is ignored.
      for (const send of this.#sends) {
        if (send.settled) continue;
        send.settled = true;
        this.#inFlightMessages -= send.size;
        this.#opts.onDropped?.(send.size, 'shutdown');
      }
      this.#sends.clear();
      this.#opts.onDepth?.(this.depth);
      if (this.depth === 0) this.#notifyIdle();
    })();
    return this.#shutdown;
  }

  #newProducer(): Producer {
    const createPartitioner = recordingPartitioner(Murmur2Partitioner, this.#assigned);
    if (!this.#opts.idempotent) return this.#kafka.producer({ idempotent: false, allowAutoTopicCreation: true, createPartitioner });
    // Bounded, unlike kafkajs' idempotent default (forever): past the window the batch comes back
    // to our own loop, so a send during a long outage cannot hold a commit or a shutdown.
    const retries = retriesWithin(this.#opts.retryWindowMs ?? 30_000, this.#maxBackoffMs);
    return this.#kafka.producer({ idempotent: true, allowAutoTopicCreation: true, createPartitioner, retry: { retries, initialRetryTime: INITIAL_RETRY_MS, maxRetryTime: this.#maxBackoffMs } });
  }

  async #disconnect(producer: Producer): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([producer.disconnect().catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, 2_000)))]);
    clearTimeout(timer);
  }

  #schedule(requestedMs: number): void {
    if (this.#activeSends >= this.#maxInFlight || this.#queued === 0) return;
    const delayMs = Math.max(requestedMs, this.#backoffUntilMs - Date.now());
    if (this.#timer) {
      if (delayMs > 0) return;
      clearTimeout(this.#timer);
    }
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#sendOnce();
    }, delayMs);
    this.#timer.unref();
  }

  async #sendOnce(): Promise<void> {
    if (this.#activeSends >= this.#maxInFlight || this.#queued === 0) return;
    const batch = this.#buffer.slice(this.#head, this.#head + this.#batchMax);
    this.#head += batch.length;
    if (this.#head > 4096 && this.#head * 2 > this.#buffer.length) {
      this.#buffer = this.#buffer.slice(this.#head);
      this.#head = 0;
    }
    this.#activeSends++;
    this.#inFlightMessages += batch.length;
    const send = { size: batch.length, settled: false };
    this.#sends.add(send);
    if (this.#queued >= this.#batchMax) this.#schedule(0);
    let nextDelay = 0;
    try {
      await this.sendNow(this.#topic, batch);
      this.#failures = 0;
      this.#lastReason = undefined;
      if (!send.settled) this.#opts.onDelivered?.(batch.length);
    } catch (err) {
      if (send.settled) {
        // Already counted as a shutdown drop.
      } else if (this.#abandoned) {
        this.#opts.onDropped?.(batch.length, 'shutdown');
      } else {
        // Back to the front of the buffer: it is retried before newer messages.
        this.#buffer = batch.concat(this.#buffer.slice(this.#head));
        this.#head = 0;
      }
      this.#failures++;
      this.#opts.onSendError?.(err);
      const cause = classifyKafkaError(err);
      if (this.#failures === 1 || this.#failures % 20 === 0 || cause.reason !== this.#lastReason) {
        const fields = { topic: this.#topic, buffered: this.depth, failures: this.#failures, reason: cause.reason, err: cause.message || errorMessage(err), hint: cause.hint };
        if (cause.persistent) this.#logger.error(fields, 'kafka send failed; buffering and retrying');
        else this.#logger.warn(fields, 'kafka send failed; buffering and retrying');
      }
      this.#lastReason = cause.reason;
      nextDelay = Math.min(this.#maxBackoffMs, 100 * 2 ** Math.min(this.#failures, 10));
      this.#backoffUntilMs = Date.now() + nextDelay;
      if (this.#failures % RECREATE_AFTER_FAILURES === 0) {
        const old = this.#producer;
        this.#producer = this.#newProducer();
        this.#connected = false;
        void this.#disconnect(old);
      }
    } finally {
      this.#activeSends--;
      if (!send.settled) this.#inFlightMessages -= batch.length;
      send.settled = true;
      this.#sends.delete(send);
    }
    this.#opts.onDepth?.(this.depth);
    if (this.depth === 0) this.#notifyIdle();
    else this.#schedule(nextDelay > 0 ? nextDelay : this.depth >= this.#batchMax || this.#closed ? 0 : this.#lingerMs);
  }

  #notifyIdle(): void {
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const w of waiters) w();
  }
}

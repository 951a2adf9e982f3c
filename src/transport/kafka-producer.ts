/**
 * Kafka producer side of the transport (collector role and the in-host span processor):
 * sampled triplets → JSON → `ragwatch.triplets.v1` (key = traceId, headers `schema-version`,
 * `content-type`). kafkajs runs on its own worker thread (`kafka-producer-worker`): encoding a
 * batch costs ~15 µs of CPU per message, which would otherwise be spent on the capturing thread —
 * the host's event loop in library mode. `send` never blocks or throws; it serializes, checks the
 * size and the buffer bound, and hands messages over once per event-loop turn. Drops are counted
 * and settle `in_flight`.
 * @module
 */
import type { Worker } from 'node:worker_threads';
import type { KafkaSection } from './kafka-client.ts';
import type { KafkaErrorCause } from './kafka-errors.ts';
import type { ProducerThreadCommand, ProducerThreadData, ProducerThreadReply, ProducerThreadRequest } from './kafka-producer-worker.ts';
import type { TripletProducer } from './types.ts';
import { RagwatchError } from '../errors.ts';
import { silentLogger, type Logger } from '../log.ts';
import type { Instruments } from '../telemetry/instruments.ts';
import { siblingScript, startWorker } from '../threads.ts';
import { SCHEMA_VERSION, type SampledTriplet } from '../triplet.ts';

/**
 * How a producer's deliveries and drops are counted. Default (triplets): `ragwatch_triplets_produced_total`,
 * `in_flight`, and `ragwatch_dropped_total{stage="transport"}`.
 */
export interface ProducerAccounting {
  delivered(n: number): void;
  dropped(n: number, reason: string): void;
}

/** Options of {@link KafkaTripletProducer}. */
export interface KafkaTripletProducerOptions {
  section: KafkaSection;
  instruments: Instruments;
  /** Receives kafkajs' and the send loop's logs (warn and above). Default: silent. */
  logger?: Logger;
  /** Topic. Default `section.topics.triplets`. */
  topic?: string;
  /** `schema-version` header. Default: the triplet wire contract's. */
  schemaVersion?: string;
  /** Delivery and drop counting. Default: triplet accounting. */
  accounting?: ProducerAccounting;
}

/** Stage label of producer drops in `ragwatch_dropped_total`. */
const STAGE = 'transport';
/** Shortest time between two starts of the producer thread after it failed, milliseconds. */
const RESTART_INTERVAL_MS = 1_000;
/** Extra wait for the thread's own shutdown deadline before it is terminated, milliseconds. */
const SHUTDOWN_SLACK_MS = 1_000;
const WORKER_URL = siblingScript(import.meta.url, 'kafka-producer-worker');

interface Request { resolve(): void; reject(err: Error): void }

/** Sends sampled triplets to the triplets topic through a bounded buffer, from a worker thread. */
export class KafkaTripletProducer implements TripletProducer {
  readonly #section: KafkaSection;
  readonly #instruments: Instruments;
  readonly #logger: Logger;
  readonly #topic: string;
  readonly #schemaVersion: string;
  readonly #accounting: ProducerAccounting;
  readonly #maxBytes: number;
  readonly #maxBuffer: number;
  readonly #batchMax: number;
  #worker: Worker | undefined;
  #startedAtMs = Number.NEGATIVE_INFINITY;
  /** Serialized triplets not yet handed to the thread. */
  #keys: string[] = [];
  #values: string[] = [];
  /** Handed to the thread and not yet delivered or dropped. */
  #handedOver = 0;
  #handOverScheduled = false;
  #retryTimer: NodeJS.Timeout | undefined;
  readonly #requests = new Map<number, Request>();
  #nextId = 1;
  #closed = false;
  #blocked: KafkaErrorCause | undefined;
  #shutdown: Promise<void> | undefined;

  constructor(options: KafkaTripletProducerOptions) {
    const { section, instruments } = options;
    this.#section = section;
    this.#instruments = instruments;
    this.#logger = options.logger ?? silentLogger;
    this.#topic = options.topic ?? section.topics.triplets;
    this.#schemaVersion = options.schemaVersion ?? SCHEMA_VERSION;
    this.#accounting = options.accounting ?? {
      delivered: (n) => {
        instruments.produced.inc(n);
        instruments.inFlight.dec(n);
      },
      dropped: (n, reason) => {
        instruments.dropped.inc({ stage: STAGE, reason }, n);
        instruments.inFlight.dec(n);
      },
    };
    this.#maxBytes = section.producer.maxMessageBytes;
    this.#maxBuffer = section.producer.maxBufferMessages;
    this.#batchMax = section.producer.batchMaxMessages;
    instruments.queueCapacity.set({ stage: 'kafka_producer' }, this.#maxBuffer);
  }

  /** Messages waiting for acknowledgement (on either thread). */
  get depth(): number {
    return this.#keys.length + this.#handedOver;
  }

  /**
   * The cause, while the latest connect or send failed for a reason that needs a configuration or
   * cluster change (authentication, TLS, authorization): the role is not ready meanwhile.
   */
  get blocked(): KafkaErrorCause | undefined {
    return this.#blocked;
  }

  /** The thread running kafkajs, once started (diagnostics; tests terminate it to simulate a crash). */
  get thread(): Worker | undefined {
    return this.#worker;
  }

  /** Starts the thread and connects eagerly. Rejects when the cluster is unreachable (sending retries anyway). */
  connect(): Promise<void> {
    return this.#request({ type: 'connect' });
  }

  send(triplet: SampledTriplet): boolean {
    return this.sendRecord(triplet.traceId, triplet);
  }

  /** Sends any JSON-serializable record under `key` (the trace id); the same bounds and counting as {@link send}. */
  sendRecord(key: string, record: unknown): boolean {
    if (this.#closed) return this.#drop(1, 'shutdown');
    let value: string;
    try {
      value = JSON.stringify(record);
    } catch {
      return this.#drop(1, 'unserializable');
    }
    // UTF-8 is at most 3 bytes per UTF-16 unit: only measure when the cheap bound is exceeded.
    if (value.length * 3 > this.#maxBytes && Buffer.byteLength(value) > this.#maxBytes) return this.#drop(1, 'too_large');
    if (this.depth >= this.#maxBuffer) return this.#drop(1, 'buffer_full');
    this.#keys.push(key);
    this.#values.push(value);
    // Published now, not at the hand-over: a scrape between the two would see the triplet sampled but not buffered.
    this.#publishDepth();
    if (this.#keys.length >= this.#batchMax) this.#handOver();
    else if (!this.#handOverScheduled) {
      this.#handOverScheduled = true;
      setImmediate(() => this.#handOver());
    }
    return true;
  }

  /**
   * Resolves when everything sent so far is acknowledged or dropped — or after `timeoutMs` (default:
   * no limit), when the thread stops holding the process open for it: while Kafka is down the
   * buffer cannot drain, and a host that flushes and then ends must still be able to exit.
   */
  forceFlush(timeoutMs?: number): Promise<void> {
    if (this.depth === 0) return Promise.resolve();
    return this.#request({ type: 'flush' }, timeoutMs).catch(() => undefined);
  }

  /** Flushes for up to `deadlineMs` (default 5000), drops and counts the rest, stops the thread. Idempotent. */
  shutdown(deadlineMs = 5_000): Promise<void> {
    this.#shutdown ??= (async () => {
      this.#closed = true;
      if (this.#worker !== undefined) await this.#request({ type: 'shutdown', deadlineMs }, deadlineMs + SHUTDOWN_SLACK_MS).catch(() => undefined);
      clearTimeout(this.#retryTimer);
      const worker = this.#worker;
      this.#worker = undefined;
      await worker?.terminate();
      this.#fail('shutdown', new RagwatchError('RAGWATCH_SHUTDOWN', 'the Kafka producer is shut down'));
    })();
    return this.#shutdown;
  }

  /** Hands the buffered messages to the thread (starting it if needed). */
  #handOver(): void {
    this.#handOverScheduled = false;
    if (this.#keys.length === 0) return;
    const worker = this.#thread();
    if (!worker) return;
    const request: ProducerThreadRequest = { type: 'messages', keys: this.#keys, values: this.#values };
    this.#handedOver += this.#keys.length;
    this.#keys = [];
    this.#values = [];
    worker.postMessage(request);
  }

  #publishDepth(): void {
    this.#instruments.kafkaProducerBuffer.set({ topic: this.#topic }, this.depth);
    this.#instruments.queueSize.set({ stage: 'kafka_producer' }, this.depth);
  }

  /** Sends a request to the thread; past `timeoutMs` it resolves unanswered (the answer is then ignored). */
  async #request(command: ProducerThreadCommand, timeoutMs?: number): Promise<void> {
    let worker = this.#thread();
    // Right after a crash the thread restarts after a pause: wait for it rather than answer early.
    while (worker === undefined) {
      if (this.#closed) throw new RagwatchError('RAGWATCH_SHUTDOWN', 'the Kafka producer is shut down');
      await new Promise((resolve) => setTimeout(resolve, this.#restartInMs()));
      worker = this.#thread();
    }
    this.#handOver();
    const id = this.#nextId++;
    // Referenced while an answer is due: a CLI awaiting only this flush must not exit early.
    if (this.#requests.size === 0) worker.ref();
    return new Promise<void>((resolve, reject) => {
      this.#requests.set(id, { resolve, reject });
      worker.postMessage({ ...command, id } satisfies ProducerThreadRequest);
      if (timeoutMs !== undefined) setTimeout(() => this.#settle(id), timeoutMs).unref();
    });
  }

  /** Ends request `id` (answered, or given up on); the thread is unreferenced once none is pending. */
  #settle(id: number, error?: string): void {
    const request = this.#requests.get(id);
    if (!request) return;
    this.#requests.delete(id);
    if (this.#requests.size === 0) this.#worker?.unref();
    if (error === undefined) request.resolve();
    else request.reject(new RagwatchError('RAGWATCH_TRANSPORT_FAILED', error));
  }

  #restartInMs(): number {
    return Math.max(0, this.#startedAtMs + RESTART_INTERVAL_MS - performance.now());
  }

  /** The running thread; starts one unless it failed less than {@link RESTART_INTERVAL_MS} ago, or the producer is shut down. */
  #thread(): Worker | undefined {
    if (this.#worker || this.#closed) return this.#worker;
    const waitMs = this.#restartInMs();
    if (waitMs > 0) {
      this.#retryTimer ??= setTimeout(() => {
        this.#retryTimer = undefined;
        this.#handOver();
      }, waitMs).unref();
      return undefined;
    }
    this.#startedAtMs = performance.now();
    const worker = startWorker(WORKER_URL, { workerData: { section: this.#section, topic: this.#topic, schemaVersion: this.#schemaVersion } satisfies ProducerThreadData });
    worker.unref();
    worker.on('message', (reply: ProducerThreadReply) => this.#onReply(reply));
    worker.on('error', (err) => this.#logger.error({ err: err.message }, 'kafka producer thread failed'));
    worker.on('exit', (code) => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      this.#logger.error({ code, lost: this.#handedOver }, 'kafka producer thread exited; restarting it');
      this.#fail('producer_thread_exit', new RagwatchError('RAGWATCH_TRANSPORT_FAILED', `the Kafka producer thread exited with code ${code}`));
      if (this.#keys.length > 0) this.#handOver();
    });
    this.#worker = worker;
    return worker;
  }

  #onReply(reply: ProducerThreadReply): void {
    switch (reply.type) {
      case 'report': {
        const instruments = this.#instruments;
        if (reply.delivered > 0) {
          this.#handedOver -= reply.delivered;
          this.#accounting.delivered(reply.delivered);
        }
        for (const [reason, n] of Object.entries(reply.dropped)) {
          this.#handedOver -= n;
          this.#drop(n, reason);
        }
        if (reply.sendErrors > 0) instruments.kafkaProduceErrors.inc({ topic: this.#topic }, reply.sendErrors);
        for (const [reason, n] of Object.entries(reply.errors)) instruments.kafkaConnectionErrors.inc({ reason }, n);
        if (reply.blocked !== undefined) {
          if (reply.blocked) this.#logger.error({ topic: this.#topic, reason: reply.blocked.reason, err: reply.blocked.message, hint: reply.blocked.hint }, 'kafka producer cannot reach the cluster; not ready, retrying with backoff');
          else if (this.#blocked) this.#logger.info({ topic: this.#topic }, 'kafka producer connected');
          this.#blocked = reply.blocked ?? undefined;
        }
        this.#publishDepth();
        return;
      }
      case 'done':
        return this.#settle(reply.id, reply.error);
      case 'log':
        this.#logger[reply.level](reply.fields, reply.message);
    }
  }

  /** The thread is gone: what it held is dropped with `reason`, and every pending request ends. */
  #fail(reason: string, err: Error): void {
    const lost = this.#handedOver + (this.#closed ? this.#keys.length : 0);
    this.#handedOver = 0;
    if (this.#closed) {
      this.#keys = [];
      this.#values = [];
    }
    if (lost > 0) this.#drop(lost, reason);
    for (const request of this.#requests.values()) request.reject(err);
    this.#requests.clear();
    this.#publishDepth();
  }

  #drop(count: number, reason: string): false {
    this.#accounting.dropped(count, reason);
    return false;
  }
}

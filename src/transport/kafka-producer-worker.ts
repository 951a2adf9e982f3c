/**
 * Entry of the Kafka producer thread ({@link KafkaTripletProducer}): runs kafkajs — record-batch
 * encoding, compression hand-off, the network — off the capturing thread, which is the host's
 * event loop in library mode. It receives serialized triplets in batches and reports back, at most
 * once per event-loop turn, what was delivered and dropped.
 * @module
 */
import { promisify } from 'node:util';
import { parentPort, workerData } from 'node:worker_threads';
import { gzip, unzip } from 'node:zlib';
import kafkajs from 'kafkajs';
import type { Logger } from 'pino';
import { BufferedKafkaProducer } from './kafka-buffered-producer.ts';
import { createKafka, producerSettingsOf, type KafkaSection } from './kafka-client.ts';
import { classifyKafkaError, type KafkaErrorCause } from './kafka-errors.ts';
import { errorMessage } from '../errors.ts';

/** `workerData` of the producer thread. */
export interface ProducerThreadData {
  section: KafkaSection;
  /** Topic to produce to. */
  topic: string;
  /** `schema-version` header of every message. */
  schemaVersion: string;
}

/** A request the producer thread answers with `done` (the main thread adds the `id`). */
export type ProducerThreadCommand = { type: 'connect' | 'flush' } | { type: 'shutdown'; deadlineMs: number };

/** Main thread → producer thread. */
export type ProducerThreadRequest =
  /** Triplets to send: `keys[i]` (the trace id) and `values[i]` (the triplet's JSON). */
  | { type: 'messages'; keys: string[]; values: string[] }
  | (ProducerThreadCommand & { id: number });

/** Producer thread → main thread. */
export type ProducerThreadReply =
  /**
   * What happened since the last report (the main thread keeps the depth itself): deliveries, drops
   * by reason, failed attempts by cause, and `blocked` — set to a cause that needs a configuration
   * or cluster change (authentication, TLS, authorization), `null` once a connect or send worked.
   */
  | { type: 'report'; delivered: number; dropped: Record<string, number>; sendErrors: number; errors: Record<string, number>; blocked?: KafkaErrorCause | null }
  | { type: 'done'; id: number; error?: string }
  | { type: 'log'; level: 'error' | 'warn' | 'info' | 'debug'; fields: Record<string, unknown>; message: string };

const port = parentPort;
if (!port) throw new Error('kafka-producer-worker runs as a worker thread');
const { section, topic, schemaVersion } = workerData as ProducerThreadData;
const post = (reply: ProducerThreadReply) => port.postMessage(reply);

const logAt = (level: 'error' | 'warn' | 'info' | 'debug') => (fields: unknown, message?: string) =>
  post({ type: 'log', level, fields: typeof fields === 'object' && fields !== null ? { ...fields } : {}, message: message ?? String(fields) });
// Only what kafkajs and the buffered producer call; the main thread's logger writes it.
const logger = { error: logAt('error'), warn: logAt('warn'), info: logAt('info'), debug: logAt('debug') } as unknown as Logger;

let report: Extract<ProducerThreadReply, { type: 'report' }> | undefined;
const pending = () => {
  if (!report) {
    report = { type: 'report', delivered: 0, dropped: {}, sendErrors: 0, errors: {} };
    setImmediate(() => {
      post(report!);
      report = undefined;
    });
  }
  return report;
};

const p = section.producer;
// kafkajs compresses at zlib's default level; its codec table is per isolate, so this thread's
// choice reaches no other kafkajs user in the process (a host's own producer keeps its level).
const gzipAsync = promisify(gzip);
const unzipAsync = promisify(unzip);
// kafkajs is CommonJS and its codec table is not a named export.
kafkajs.CompressionCodecs[kafkajs.CompressionTypes.GZIP] = () => ({
  compress: (encoder: { buffer: Buffer }) => gzipAsync(encoder.buffer, { level: p.gzipLevel }),
  decompress: (buffer: Buffer) => unzipAsync(buffer),
});
/** The persistent cause reported last (undefined: none). */
let blocked: KafkaErrorCause | undefined;
const failed = (err: unknown, send: boolean) => {
  const cause = classifyKafkaError(err);
  const r = pending();
  if (send) r.sendErrors++;
  r.errors[cause.reason] = (r.errors[cause.reason] ?? 0) + 1;
  if (cause.persistent && (blocked === undefined || blocked.message !== cause.message)) r.blocked = blocked = cause;
};
const healthy = () => {
  if (blocked === undefined) return;
  blocked = undefined;
  pending().blocked = null;
};
const producer = new BufferedKafkaProducer({
  kafka: createKafka(section, logger),
  topic,
  maxBufferMessages: p.maxBufferMessages,
  batchMaxMessages: p.batchMaxMessages,
  lingerMs: p.lingerMs,
  ...producerSettingsOf(section),
  logger,
  onDelivered: (n) => {
    pending().delivered += n;
    healthy();
  },
  onDropped: (n, reason) => {
    const r = pending();
    r.dropped[reason] = (r.dropped[reason] ?? 0) + n;
  },
  onSendError: (err) => failed(err, true),
});

/** Longest wait between two connection attempts while nothing is sent, milliseconds. */
const MAX_CONNECT_BACKOFF_MS = 30_000;
let reconnecting = false;
let closing = false;

/**
 * Connects; after a failure keeps trying in the background with backoff (even with no traffic to
 * send) so `blocked` clears by itself once the cluster accepts this client.
 */
function connect(): Promise<void> {
  const first = producer.connect();
  first.then(healthy, (err: unknown) => {
    failed(err, false);
    if (reconnecting) return;
    reconnecting = true;
    void (async () => {
      for (let attempt = 1; !closing && !producer.connected; attempt++) {
        await new Promise((r) => setTimeout(r, Math.min(MAX_CONNECT_BACKOFF_MS, 1_000 * 2 ** Math.min(attempt, 5))));
        if (closing || producer.connected) break;
        try {
          await producer.connect();
          healthy();
        } catch (e) {
          failed(e, false);
        }
      }
      reconnecting = false;
    })();
  });
  return first;
}

const HEADERS = { 'schema-version': schemaVersion, 'content-type': 'application/json' };

/** Answers a request once `work` settles; reports first, so the main thread's counts are final. */
function answer(id: number, work: Promise<void>): void {
  work.then(
    () => setImmediate(() => post({ type: 'done', id })),
    (err: unknown) => setImmediate(() => post({ type: 'done', id, error: errorMessage(err) })),
  );
}

port.on('message', (request: ProducerThreadRequest) => {
  switch (request.type) {
    case 'messages':
      // A message refused here (buffer full) is reported through onDropped.
      for (let i = 0; i < request.keys.length; i++) producer.enqueue({ key: request.keys[i]!, value: request.values[i]!, headers: HEADERS });
      return;
    case 'connect':
      return answer(request.id, connect());
    case 'flush':
      return answer(request.id, producer.forceFlush());
    case 'shutdown':
      closing = true;
      return answer(request.id, producer.shutdown(request.deadlineMs));
  }
});

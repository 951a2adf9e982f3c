/**
 * OTLP/gRPC export of log records (`opentelemetry.proto.collector.logs.v1.LogsService/Export`) with
 * @grpc/grpc-js, raw protobuf bytes in and out (serialised by OTel's otlp-transformer). Statuses are
 * classified as the OTLP specification says: CANCELLED, DEADLINE_EXCEEDED, ABORTED, OUT_OF_RANGE,
 * UNAVAILABLE and DATA_LOSS are retryable; RESOURCE_EXHAUSTED only with a `google.rpc.RetryInfo` in
 * `grpc-status-details-bin` (the server can recover), whose delay is then honoured; everything else
 * (INVALID_ARGUMENT, UNAUTHENTICATED, …) is a failure. One channel, opened on the first export.
 * @module
 */
import type * as Grpc from '@grpc/grpc-js';
import { createRequire } from 'node:module';
import { decodeRetryDelaySeconds } from '../capture/otlp/protobuf.ts';
import { errorMessage } from '../errors.ts';
import type { SendOutcome } from './types.ts';

const LOGS_EXPORT = '/opentelemetry.proto.collector.logs.v1.LogsService/Export';
// grpc-js is loaded by a gRPC writer only: the HTTP writers and a process without export never pay for it.
const requireHere = createRequire(import.meta.url);

/** gRPC codes the OTLP specification retries (RESOURCE_EXHAUSTED apart: only with RetryInfo). */
const RETRYABLE = new Set([1, 4, 10, 11, 14, 15]);
const RESOURCE_EXHAUSTED = 8;

/** Options of {@link GrpcLogsTransport}. */
export interface GrpcLogsTransportOptions {
  /** `http://host:port` (plain) or `https://host:port` (TLS unless `insecure`). */
  endpoint: string;
  headers: Readonly<Record<string, string>>;
  compression: 'none' | 'gzip';
  insecure: boolean;
}

/** The delay of a status's RetryInfo, milliseconds; undefined without one. */
function retryInfoMs(error: Grpc.ServiceError): number | undefined {
  const details = error.metadata?.get('grpc-status-details-bin')[0];
  if (!Buffer.isBuffer(details)) return undefined;
  try {
    const seconds = decodeRetryDelaySeconds(details);
    return seconds === undefined ? undefined : Math.max(0, Math.round(seconds * 1000));
  } catch {
    return undefined;
  }
}

/** Classifies a finished call. */
export function grpcOutcome(error: Grpc.ServiceError | null): SendOutcome {
  if (!error) return { status: 'success' };
  const reason = `gRPC ${error.code}: ${error.details || errorMessage(error)}`;
  const delay = retryInfoMs(error);
  if (RETRYABLE.has(error.code)) return delay === undefined ? { status: 'retryable', error: reason } : { status: 'retryable', error: reason, retryAfterMs: delay };
  if (error.code === RESOURCE_EXHAUSTED && delay !== undefined) return { status: 'retryable', error: reason, retryAfterMs: delay };
  return { status: 'failure', error: reason };
}

export class GrpcLogsTransport {
  readonly #o: GrpcLogsTransportOptions;
  #client: Grpc.Client | undefined;
  #grpc: typeof Grpc | undefined;

  constructor(options: GrpcLogsTransportOptions) {
    this.#o = options;
    // Loaded now, at start, so the first export does not stall the event loop while grpc-js loads.
    this.#grpc = requireHere('@grpc/grpc-js') as typeof Grpc;
  }

  #open(): { grpc: typeof Grpc; client: Grpc.Client } {
    const grpc = (this.#grpc ??= requireHere('@grpc/grpc-js') as typeof Grpc);
    if (!this.#client) {
      const url = new URL(this.#o.endpoint);
      // `host` keeps an IPv6 address in brackets; a URL without a port gets its scheme's.
      const target = url.port ? url.host : `${url.host}:${url.protocol === 'https:' ? 443 : 80}`;
      const credentials = url.protocol === 'https:' && !this.#o.insecure ? grpc.credentials.createSsl() : grpc.credentials.createInsecure();
      this.#client = new grpc.Client(target, credentials, {
        'grpc.default_compression_algorithm': this.#o.compression === 'gzip' ? 2 : 0,
        'grpc.primary_user_agent': 'ragwatch-evaluation-export',
        'grpc.enable_retries': 0,
      });
    }
    return { grpc, client: this.#client };
  }

  /** Sends one serialised ExportLogsServiceRequest; never rejects. The response (partial success) is returned raw. */
  send(body: Uint8Array, timeoutMs: number, signal: AbortSignal): Promise<SendOutcome & { response?: Buffer }> {
    let opened: { grpc: typeof Grpc; client: Grpc.Client };
    try {
      opened = this.#open();
    } catch (err) {
      return Promise.resolve({ status: 'failure', error: `cannot open gRPC channel to ${this.#o.endpoint}: ${errorMessage(err)}` });
    }
    const { grpc, client } = opened;
    const metadata = new grpc.Metadata();
    for (const [k, v] of Object.entries(this.#o.headers)) metadata.set(k.toLowerCase(), v);
    return new Promise((resolve) => {
      const call = client.makeUnaryRequest<Buffer, Buffer>(
        LOGS_EXPORT,
        (b) => b,
        (b) => b,
        Buffer.from(body.buffer, body.byteOffset, body.byteLength),
        metadata,
        { deadline: Date.now() + timeoutMs },
        (error, response) => {
          signal.removeEventListener('abort', cancel);
          const outcome = grpcOutcome(error);
          resolve(outcome.status === 'success' && response ? { ...outcome, response } : outcome);
        },
      );
      function cancel() {
        call.cancel();
      }
      signal.addEventListener('abort', cancel, { once: true });
    });
  }

  /** Closes the channel. Idempotent. */
  close(): void {
    this.#client?.close();
    this.#client = undefined;
  }
}

/**
 * OTLP/gRPC ingest (`opentelemetry.proto.collector.trace.v1.TraceService/Export` and
 * `…logs.v1.LogsService/Export`, @grpc/grpc-js), with the guarantees of OTLP/HTTP (docs/ingest.md):
 * the bearer token from the `authorization` metadata (UNAUTHENTICATED), gzip per `grpc-encoding` with
 * `maxBodyBytes` checked after decompression (RESOURCE_EXHAUSTED), the same admission guard as the HTTP
 * endpoints — load shedding answers UNAVAILABLE and rate limits RESOURCE_EXHAUSTED, both with a
 * `google.rpc.RetryInfo` in `grpc-status-details-bin`, so exporters back off and retry (OTLP
 * spec, "OTLP/gRPC Throttling") — `partial_success` for rejected items, the same outcomes and
 * accounting (`transport="grpc"`), and a shutdown that finishes calls in progress and refuses new ones.
 * @module
 */
import * as grpc from '@grpc/grpc-js';
import { decodeLogsRequestProtobuf, decodeTraceRequestProtobuf, encodeLogsResponse, encodeStatusWithRetry, encodeTraceResponse, type PartialSuccess } from '../capture/otlp/protobuf.ts';
import { decodeLogsRequest } from '../capture/otlp/logs.ts';
import { decodeTraceRequest } from '../capture/otlp/traces.ts';
import type { CapturedLog, CapturedSpan } from '../capture/types.ts';
import { OtlpDecodeError, errorMessage } from '../errors.ts';
import type { IngestReason, IngestOutcome } from './ingest-app.ts';
import { bytesRefusal, type IngestGuard, type Refusal } from './ingest-guard.ts';
import type { IngestStatus, OtlpSignal } from './otlp-response.ts';

/** Options of {@link startGrpcIngest}. */
export interface GrpcIngestOptions {
  /** The admission guard shared with OTLP/HTTP (one set of limits for both transports). */
  guard: IngestGuard;
  onSpans: (spans: CapturedSpan[]) => void;
  onLogs: (logs: CapturedLog[]) => void;
  /** Largest message, after decompression, in bytes. */
  maxBodyBytes: number;
  /** Told about every call (metrics), as OTLP/HTTP outcomes with the HTTP status each gRPC status mirrors. */
  onOutcome?: (outcome: IngestOutcome) => void;
}

/** A running OTLP/gRPC server. */
export interface GrpcIngest {
  port: number;
  /** Refuses new calls, lets calls in progress finish for up to `graceMs`, then cuts the rest. Idempotent. */
  close(graceMs?: number): Promise<void>;
}

const raw = (b: Buffer) => b;
/** The two unary methods, with raw bytes in and out: the project's own protobuf decoding does the rest. */
function method(path: string): grpc.MethodDefinition<Buffer, Uint8Array> {
  return { path, requestStream: false, responseStream: false, requestSerialize: raw, requestDeserialize: raw, responseSerialize: (r: Uint8Array) => Buffer.from(r.buffer, r.byteOffset, r.byteLength), responseDeserialize: raw };
}
const TRACE_SERVICE = { Export: method('/opentelemetry.proto.collector.trace.v1.TraceService/Export') };
const LOGS_SERVICE = { Export: method('/opentelemetry.proto.collector.logs.v1.LogsService/Export') };

/** A refusal of the guard as a gRPC status (OTLP/gRPC: what exporters retry, and after how long). */
function refusalStatus(r: Refusal): Partial<grpc.StatusObject> {
  if (r.reason === 'unauthorized') return { code: grpc.status.UNAUTHENTICATED, details: r.message };
  // Shedding is UNAVAILABLE (always retryable); a rate limit RESOURCE_EXHAUSTED, retryable because of its RetryInfo.
  const code = r.reason === 'saturated' ? grpc.status.UNAVAILABLE : grpc.status.RESOURCE_EXHAUSTED;
  const metadata = new grpc.Metadata();
  metadata.set('grpc-status-details-bin', Buffer.from(encodeStatusWithRetry(code, r.message, r.retryAfterSeconds ?? 1)));
  return { code, details: r.message, metadata };
}

/** The HTTP status an outcome mirrors (the accounting is shared with OTLP/HTTP). */
const HTTP_OF: Record<IngestReason, IngestStatus> = { ok: 200, partial: 200, unauthorized: 401, saturated: 503, rate_limited: 429, too_large: 413, invalid: 400, unsupported_media_type: 415, timeout: 408, internal: 500 };

/** Starts the OTLP/gRPC server on `host:port` (0 = a free port). */
export async function startGrpcIngest(host: string, port: number, options: GrpcIngestOptions): Promise<GrpcIngest> {
  const { guard } = options;
  const record = (signal: OtlpSignal, reason: IngestReason, accepted = 0, rejected = 0) =>
    options.onOutcome?.({ endpoint: signal === 'traces' ? '/v1/traces' : '/v1/logs', transport: 'grpc', status: HTTP_OF[reason], reason, accepted, rejected });
  // A call whose message never reached the handler was refused by grpc-js itself (over
  // maxBodyBytes after decompression, an undecompressable body): counted here, as HTTP counts its 413s.
  // grpc-js sends those statuses from the base call on itself, past any interceptor's responder, so
  // the base call's own sendStatus is wrapped.
  const interceptor: grpc.ServerInterceptor = (descriptor, call) => {
    const signal: OtlpSignal = descriptor.path.includes('.logs.') ? 'logs' : 'traces';
    let handled = false;
    const send = call.sendStatus.bind(call);
    call.sendStatus = (status) => {
      if (!handled && status.code !== grpc.status.OK) record(signal, status.code === grpc.status.RESOURCE_EXHAUSTED ? 'too_large' : 'invalid');
      send(status);
    };
    return new grpc.ServerInterceptingCall(call, {
      start: (next) =>
        next({
          onReceiveMessage: (message, nextMessage) => {
            handled = true;
            nextMessage(message);
          },
        }),
    });
  };
  const server = new grpc.Server({ 'grpc.max_receive_message_length': options.maxBodyBytes, interceptors: [interceptor] });

  function handler(signal: OtlpSignal) {
    return (call: grpc.ServerUnaryCall<Buffer, Uint8Array>, callback: grpc.sendUnaryData<Uint8Array>): void => {
      const done = (reason: IngestReason, response: Uint8Array | null, status?: Partial<grpc.StatusObject>, accepted = 0, rejected = 0): void => {
        record(signal, reason, accepted, rejected);
        if (status) callback(status, null);
        else callback(null, response);
      };
      const auth = call.metadata.get('authorization')[0];
      const refusal = guard.admit(typeof auth === 'string' ? auth : auth?.toString());
      if (refusal) return done(refusal.reason, null, refusalStatus(refusal));
      const body = call.request;
      let held = 0;
      try {
        if (!guard.reserveBytes(body.byteLength)) {
          const r = bytesRefusal(guard.maxInflightBytes);
          return done(r.reason, null, refusalStatus(r));
        }
        held = body.byteLength;
        const decoded = signal === 'traces' ? decodeTraceRequest(decodeTraceRequestProtobuf(body)) : decodeLogsRequest(decodeLogsRequestProtobuf(body));
        const items = 'spans' in decoded ? decoded.spans : decoded.logs;
        const over = guard.admitItems(items.length);
        if (over) return done(over.reason, null, refusalStatus(over));
        if (items.length > 0) {
          if ('spans' in decoded) options.onSpans(decoded.spans);
          else options.onLogs(decoded.logs);
        }
        const partial: PartialSuccess | undefined = decoded.rejected > 0 ? { rejected: decoded.rejected, errorMessage: decoded.errorMessage ?? '' } : undefined;
        const response = signal === 'traces' ? encodeTraceResponse(partial) : encodeLogsResponse(partial);
        done(partial ? 'partial' : 'ok', response, undefined, items.length, decoded.rejected);
      } catch (err) {
        if (err instanceof OtlpDecodeError) done('invalid', null, { code: grpc.status.INVALID_ARGUMENT, details: err.message });
        else done('internal', null, { code: grpc.status.INTERNAL, details: `internal error: ${errorMessage(err)}` });
      } finally {
        guard.releaseBytes(held);
        guard.release();
      }
    };
  }

  server.addService(TRACE_SERVICE, { Export: handler('traces') });
  server.addService(LOGS_SERVICE, { Export: handler('logs') });
  const bound = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${host.includes(':') ? `[${host}]` : host}:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p)));
  });
  let closing: Promise<void> | undefined;
  return {
    port: bound,
    close: (graceMs = 5_000) =>
      (closing ??= new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        timer.unref();
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      })),
  };
}

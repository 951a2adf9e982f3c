/**
 * The OTLP ingest servers of a role (`ragwatch start`, `ragwatch collector`): OTLP/HTTP on
 * `server.otlpPort` and OTLP/gRPC on `server.otlpGrpcPort`, one admission guard for both (the
 * concurrency, body-bytes and rate limits hold across the two transports), the same sinks and the
 * same accounting.
 * @module
 */
import type { CapturedLog, CapturedSpan } from '../capture/types.ts';
import type { RagwatchConfig } from '../config/schema.ts';
import { ConfigError, errorMessage } from '../errors.ts';
import { createIngestApp, ingestGuardOf, type IngestAppOptions, type IngestOutcome } from '../server/ingest-app.ts';
import { startGrpcIngest, type GrpcIngest } from '../server/ingest-grpc.ts';
import type { SampledTriplet } from '../triplet.ts';
import { listen, type RunningServer } from './serve.ts';

/** What the ingest servers feed and ask. */
export interface IngestHooks {
  onSpans: (spans: CapturedSpan[]) => void;
  onLogs: (logs: CapturedLog[]) => void;
  onOutcome: (outcome: IngestOutcome) => void;
  /** Why new requests are refused whole now (the capture buffer is nearly full); undefined = admit. */
  saturation?: () => string | undefined;
  /** Sampled triplets a plugin forwards (`POST /v1/ragwatch/triplets`); absent: not served. */
  onTriplets?: (triplets: SampledTriplet[]) => void;
  /** End users' feedback (`POST /v1/ragwatch/feedback`); absent: not served. */
  feedback?: IngestAppOptions['feedback'];
}

/** The running ingest servers. */
export interface IngestServers {
  http: RunningServer;
  /** Absent with `server.otlpGrpc: false`. */
  grpc: GrpcIngest | undefined;
  /** Refuses new requests and finishes those in progress (gRPC: within `graceMs`). Idempotent. */
  close(graceMs?: number): Promise<void>;
}

/** Starts OTLP/HTTP and (unless turned off) OTLP/gRPC; a port in use names its key. */
export async function startIngestServers(server: RagwatchConfig['server'], hooks: IngestHooks): Promise<IngestServers> {
  const limits = {
    maxBodyBytes: server.maxBodyBytes,
    maxConcurrentRequests: server.maxConcurrentRequests,
    maxInflightBytes: server.maxInflightBytes,
    maxEventLoopDelayMs: server.maxEventLoopDelayMs,
    rateLimitRequestsPerSecond: server.rateLimitRequestsPerSecond,
    rateLimitItemsPerSecond: server.rateLimitItemsPerSecond,
    rateLimitBurstSeconds: server.rateLimitBurstSeconds,
    bearerToken: server.bearerToken,
    ...(hooks.saturation ? { saturation: hooks.saturation } : {}),
  };
  const guard = ingestGuardOf(limits);
  const app = createIngestApp({ ...limits, guard, onSpans: hooks.onSpans, onLogs: hooks.onLogs, requestTimeoutMs: server.requestTimeoutMs, onOutcome: hooks.onOutcome, ...(hooks.onTriplets ? { onTriplets: hooks.onTriplets } : {}), ...(hooks.feedback ? { feedback: hooks.feedback } : {}) });
  const http = await listen(app, server.host, server.otlpPort);
  let grpc: GrpcIngest | undefined;
  if (server.otlpGrpc) {
    try {
      grpc = await startGrpcIngest(server.host, server.otlpGrpcPort, { guard, onSpans: hooks.onSpans, onLogs: hooks.onLogs, maxBodyBytes: server.maxBodyBytes, onOutcome: hooks.onOutcome });
    } catch (err) {
      await http.close();
      throw new ConfigError(`config key "server.otlpGrpcPort" (env RAGWATCH_OTLP_GRPC_PORT): cannot serve OTLP/gRPC on ${server.host}:${server.otlpGrpcPort}: ${errorMessage(err)} (another OTLP receiver there? pick another port, or server.otlpGrpc: false)`, ['server.otlpGrpcPort']);
    }
  }
  let closing: Promise<void> | undefined;
  return {
    http,
    grpc,
    close: (graceMs?: number) => (closing ??= (async () => void (await Promise.all([http.close(), grpc?.close(graceMs)])))()),
  };
}

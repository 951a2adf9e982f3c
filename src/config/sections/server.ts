import { z } from 'zod';

const port = z.number().int().min(0).max(65535);

/** HTTP servers: OTLP ingest and the metrics/API port. */
export const serverSection = z
  .object({
    /** Interface both servers bind to. Loopback by default: expose deliberately. */
    host: z.string().min(1).default('127.0.0.1'),
    /** OTLP/HTTP ingest port (`/v1/traces`, `/v1/logs`). 0 picks a free port. */
    otlpPort: port.default(4318),
    /** Metrics and API port (`/metrics`, `/healthz`, `/readyz`, `/api/*`). 0 picks a free port. */
    httpPort: port.default(9464),
    /** Largest accepted OTLP body, after decompression, in bytes. */
    maxBodyBytes: z.number().int().positive().default(16 * 1024 * 1024),
    /** Optional bearer token required on `/v1/*` (constant-time compare). */
    bearerToken: z.string().min(16).optional(),
    /** Per-request processing timeout, milliseconds. */
    requestTimeoutMs: z.number().int().positive().default(10_000),
    /** Concurrent OTLP requests before answering 503 with Retry-After. */
    maxConcurrentRequests: z.number().int().positive().default(64),
    /** Grace period for SIGTERM: stop ingest, flush, finish in-flight work, exit. Milliseconds. */
    shutdownGraceMs: z.number().int().positive().default(4_000),
  })
  .strict();

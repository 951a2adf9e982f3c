import { z } from 'zod';

const port = z.number().int().min(0).max(65535);

/** HTTP servers: OTLP ingest and the metrics/API port. */
export const serverSection = z
  .object({
    /** Interface both servers bind to. Loopback by default: expose deliberately. Default `127.0.0.1`. */
    host: z.string().min(1).default('127.0.0.1'),
    /** OTLP/HTTP ingest port (`/v1/traces`, `/v1/logs`). 0 picks a free port. Default 4318. */
    otlpPort: port.default(4318),
    /**
     * OTLP/gRPC ingest port (`TraceService/Export`, `LogsService/Export`: the Collector's `otlp` exporter,
     * the Python and .NET SDKs' default). 0 picks a free port. Default 4317.
     */
    otlpGrpcPort: port.default(4317),
    /** Serve OTLP/gRPC at all. Default true. */
    otlpGrpc: z.boolean().default(true),
    /** Metrics and API port (`/metrics`, `/healthz`, `/readyz`, `/api/*`). 0 picks a free port. Default 9464. */
    httpPort: port.default(9464),
    /** Largest accepted OTLP body, on the wire and after decompression, in bytes (over it → 413). Default 16 MiB. */
    maxBodyBytes: z.number().int().positive().default(16 * 1024 * 1024),
    /** Optional bearer token required on `/v1/*` (constant-time compare; missing or wrong → 401). Default: none. */
    bearerToken: z.string().min(16).optional(),
    /**
     * Token required by everything that shows users' content — `/examples`, `/api/*` — as
     * `Authorization: Bearer <token>` or through the sign-in form at `/login` (a session cookie).
     * `/metrics`, `/healthz`, `/readyz` stay open. Default: none (then the UI is served on a loopback
     * `host` only).
     */
    apiToken: z.string().min(16).optional(),
    /**
     * Link every trace id the pages show (examples, conversations, review, probes) to the tracing backend the
     * service already uses: an http(s) URL with `{traceId}`, e.g. Grafana Tempo
     * `https://grafana.example/explore?left=…{traceId}…`, Jaeger `https://jaeger.example/trace/{traceId}`,
     * Phoenix, Langfuse (docs/deploy.md). Default: unset (trace ids shown, not linked).
     */
    traceUrlTemplate: z
      .string()
      .max(2_000)
      .regex(/^https?:\/\/[^\s]+$/, 'an http(s) URL without spaces')
      .refine((s) => s.includes('{traceId}'), 'must contain {traceId}, where the trace id goes')
      .optional(),
    /** Serve the UI without a token on a non-loopback `host` (not recommended). Default false. */
    allowUnauthenticatedUi: z.boolean().default(false),
    /** Port of its own for the UI and `/api/*` (so the scraped port carries only metrics). Default: unset, served on `httpPort`. */
    uiPort: port.optional(),
    /** Time allowed to receive one OTLP request body, milliseconds (over it → 408). Default 10000. */
    requestTimeoutMs: z.number().int().positive().default(10_000),
    /** Concurrent OTLP requests before answering 503 with Retry-After. Default 64. */
    maxConcurrentRequests: z.number().int().positive().default(64),
    /**
     * Bytes of OTLP request bodies held at once (as received plus the decompressed copy); a body
     * that does not fit gets 503 with Retry-After. Raised to 2 × `maxBodyBytes` when below it.
     * Default 64 MiB.
     */
    maxInflightBytes: z.number().int().positive().default(64 * 1024 * 1024),
    /**
     * Shed load when the event loop is late: while the process's event loop has been delayed more than
     * this in the last ~200 ms (judging, parsing) and other OTLP requests are in progress, new ones get
     * 503 with Retry-After before their body is read, so /healthz, /metrics and the work already admitted
     * stay responsive at any overload (OTLP exporters retry a 503).
     * 0 turns it off. Milliseconds. Default 40.
     */
    maxEventLoopDelayMs: z.number().int().min(0).default(40),
    /** Optional limit on OTLP requests per second (all clients together); over it → 429 with Retry-After. Default: none. */
    rateLimitRequestsPerSecond: z.number().positive().optional(),
    /** Optional limit on spans + log records per second; a batch over it → 429 with Retry-After. Default: none. */
    rateLimitItemsPerSecond: z.number().positive().optional(),
    /** Burst allowed by the rate limits, in seconds of rate. Default 1. */
    rateLimitBurstSeconds: z.number().positive().default(1),
    /** Grace period for SIGTERM: stop ingest, flush, finish in-flight work, exit. Milliseconds. Default 4000. */
    shutdownGraceMs: z.number().int().positive().default(4_000),
  })
  .strict();

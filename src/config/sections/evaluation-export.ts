import { z } from 'zod';

/** An http(s) base URL without spaces. */
const httpUrl = z.string().max(2_000).regex(/^https?:\/\/[^\s]+$/, 'an http(s) URL without spaces');

/** Header names and values sent with every request (credentials of the receiving end). */
const headers = z
  .record(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/, 'an HTTP header name'), z.string().max(8_192))
  .default({})
  .describe('Headers (HTTP) or metadata (gRPC) sent with every export, e.g. an API key, as `key: value` (env: `key=value,key2=value2`).');

/** Retries of one batch, as the OTLP specification asks: retryable answers only, Retry-After / RetryInfo honoured, exponential backoff with jitter. */
const retry = z
  .object({
    maxAttempts: z.number().int().min(1).max(20).default(5).describe('Attempts per batch (the first included); a batch that fails them all is dropped and counted (reason retries_exhausted).'),
    initialBackoffMs: z.number().int().positive().default(1_000).describe('Wait before the first retry when the receiver gave no Retry-After / RetryInfo, milliseconds; ×1.5 per retry, ±20 % jitter.'),
    maxBackoffMs: z.number().int().positive().default(5_000).describe('Longest wait between two attempts when the receiver names none, milliseconds.'),
    maxElapsedMs: z.number().int().positive().default(30_000).describe('A batch is given up once this long has passed since its first attempt, or when a Retry-After would end past it, milliseconds.'),
  })
  .strict();

/** Batching and the bounded queue every writer has (described with `.describe()`: the docs generator reads no JSDoc of spread keys). */
const queue = {
  maxQueueSize: z.number().int().positive().max(1_000_000).default(2_048).describe('Evaluation results waiting to be sent at most; when full the newest are dropped and counted (reason queue_full).'),
  maxBatchSize: z.number().int().positive().max(10_000).default(512).describe('Results sent in one request at most.'),
  scheduledDelayMs: z.number().int().positive().default(1_000).describe('Longest a result waits for its batch to fill, milliseconds.'),
  timeoutMs: z.number().int().positive().default(10_000).describe('Time allowed to one request, milliseconds.'),
};

/** The OTLP writer: `gen_ai.evaluation.result` log records to a Collector (or any OTLP logs receiver). */
const otlp = z
  .object({
    /** Send at all. Default: on when `endpoint` is set (from here or `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`). */
    enabled: z.boolean().optional(),
    /**
     * Where the log records go: for `http/*` the full URL of the logs endpoint (e.g. `http://collector:4318/v1/logs`,
     * as `OTEL_EXPORTER_OTLP_LOGS_ENDPOINT`); for `grpc` the server's `http://host:4317` (plain) or `https://host:4317` (TLS).
     * Default: none.
     */
    endpoint: httpUrl.optional(),
    /** `http/protobuf`, `http/json` or `grpc`, as the OTel exporters name them. Default `http/protobuf`. */
    protocol: z.enum(['http/protobuf', 'http/json', 'grpc']).default('http/protobuf'),
    headers,
    /** `gzip` or `none`. Default `none`. */
    compression: z.enum(['none', 'gzip']).default('none'),
    /** gRPC without TLS even for an `https://` endpoint (an `http://` endpoint is always plain). Default false. */
    insecure: z.boolean().default(false),
    /** `service.name` of the records' resource: the evaluator. Default `ragwatch`. */
    serviceName: z.string().min(1).max(256).default('ragwatch'),
    ...queue,
    retry: retry.prefault({}),
  })
  .strict();

/** The Phoenix writer: span annotations through Phoenix's REST API (docs/evaluation-export.md). */
const phoenix = z
  .object({
    /** Phoenix's base URL (e.g. `http://phoenix:6006`); the writer is on when set. Default: none. */
    endpoint: httpUrl.optional(),
    /** Bearer token of a Phoenix with authentication on. Default: none. */
    apiKey: z.string().min(1).optional(),
    /** Annotations of one request at most. Default 100. */
    maxBatchSize: z.number().int().positive().max(1_000).default(100),
    maxQueueSize: queue.maxQueueSize,
    scheduledDelayMs: queue.scheduledDelayMs,
    timeoutMs: queue.timeoutMs,
    retry: retry.prefault({}),
  })
  .strict();

/** The Langfuse writer: one score per result through Langfuse's public scores API (docs/evaluation-export.md). */
const langfuse = z
  .object({
    /** Langfuse's base URL (e.g. `https://cloud.langfuse.com`); the writer is on when set with both keys. Default: none. */
    baseUrl: httpUrl.optional(),
    /** Project public key (Basic-auth user). Default: none. */
    publicKey: z.string().min(1).optional(),
    /** Project secret key (Basic-auth password). Default: none. */
    secretKey: z.string().min(1).optional(),
    /** `environment` of the scores (lower-case letters, digits, `-` and `_`, not starting with `langfuse`). Default: none (Langfuse's default). */
    environment: z
      .string()
      .regex(/^(?!langfuse)[a-z0-9_-]{1,40}$/, 'lower-case letters, digits, - and _, not starting with "langfuse"')
      .optional(),
    /** Score requests in flight at once. Default 4. */
    concurrency: z.number().int().positive().max(64).default(4),
    maxQueueSize: queue.maxQueueSize,
    scheduledDelayMs: queue.scheduledDelayMs,
    timeoutMs: queue.timeoutMs,
    retry: retry.prefault({}),
  })
  .strict()
  .refine((l) => l.baseUrl === undefined || (l.publicKey !== undefined && l.secretKey !== undefined), { message: '`publicKey` and `secretKey` are required with `baseUrl`' });

/** Verdicts written onto the traces people already look at (docs/evaluation-export.md): OTLP log records, Phoenix annotations, Langfuse scores. */
export const evaluationExportSection = z
  .object({
    /** `all` scored metrics of every answer, or only `failing` ones (a score at or below its alert threshold, and skipped metrics). Default `all`. */
    select: z.enum(['all', 'failing']).default('all'),
    /** Longest `gen_ai.evaluation.explanation` (the unsupported claims or the reason, redacted), characters. Default 1000. */
    maxExplanationChars: z.number().int().min(0).max(100_000).default(1_000),
    /** Also export the verdicts of ragwatch's own probes (their traces are marked). Default false. */
    includeProbes: z.boolean().default(false),
    /**
     * ragwatch's answer page as your users reach it, with `{traceId}` (e.g. `https://ragwatch.example.com/answers/{traceId}`):
     * each result then carries the link (`ragwatch.answer.url`; Phoenix and Langfuse metadata `answer_url`), one
     * click from the trace to why it was judged so (docs/answers.md). Default: none.
     */
    answerUrlTemplate: z
      .string()
      .regex(/^https?:\/\/[^\s]+$/, 'an http(s) URL')
      .refine((t) => t.includes('{traceId}'), 'must contain {traceId}')
      .optional(),
    otlp: otlp.prefault({}),
    phoenix: phoenix.prefault({}),
    langfuse: langfuse.prefault({}),
  })
  .strict();

/** Resolved `evaluationExport` section. */
export type EvaluationExportConfig = z.output<typeof evaluationExportSection>;

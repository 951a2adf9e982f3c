/**
 * OTLP/HTTP ingest: `POST /v1/traces` and `POST /v1/logs`, OTLP/JSON or protobuf, optionally
 * gzip. Answers per the OTLP/HTTP spec in the request's encoding: 200 (with `partialSuccess`
 * when items were rejected), 400 with the reason, 401, 408, 413 (wire or decompressed size),
 * 415, 429/503 with `Retry-After`. See docs/ingest.md.
 * @module
 */
import { Hono, type Context } from 'hono';
import { decodeLogs, decodeTraces, otlpMediaType, type OtlpMediaType } from '../capture/otlp/decode.ts';
import type { CapturedLog, CapturedSpan } from '../capture/types.ts';
import { OtlpDecodeError, errorMessage } from '../errors.ts';
import { DEFAULT_MAX_INFLIGHT_BYTES, INGEST_DEFAULTS, IngestGuard, bytesRefusal, type IngestGuardOptions, type Refusal } from './ingest-guard.ts';
import { IngestBytesExhaustedError, IngestTimeoutError, decompress, readLimited } from './otlp-body.ts';
import { errorResponse, exportResponse, responseMediaType, type IngestStatus, type OtlpSignal } from './otlp-response.ts';
import { sampledTripletSchema, type SampledTriplet } from '../triplet.ts';

/** Most triplets one forwarded request may carry. */
const MAX_FORWARDED = 1_000;

/** Why a request got its status; a bounded set (metric label). */
export type IngestReason =
  | 'ok'
  | 'partial'
  | 'unauthorized'
  | 'saturated'
  | 'rate_limited'
  | 'too_large'
  | 'invalid'
  | 'unsupported_media_type'
  | 'timeout'
  | 'internal';

/** What happened to one ingest request. */
export interface IngestOutcome {
  endpoint: '/v1/traces' | '/v1/logs' | '/v1/ragwatch/triplets' | '/v1/ragwatch/feedback';
  /**
   * OTLP/HTTP, OTLP/gRPC (its status is then the HTTP status the gRPC one mirrors), or a message of an
   * OTLP Kafka topic (`ingest.kafka`; one message counts as one request, its status as an HTTP one).
   */
  transport: 'http' | 'grpc' | 'kafka';
  status: IngestStatus;
  reason: IngestReason;
  /** Spans or log records accepted and handed on. */
  accepted: number;
  /** Spans or log records rejected individually (partial success). */
  rejected: number;
}

/** Options of {@link createIngestApp}: the two sinks, then limits that default to the config defaults. */
export interface IngestAppOptions extends IngestGuardOptions {
  /** Receives decoded spans. Must not throw. */
  onSpans: (spans: CapturedSpan[]) => void;
  /** Receives decoded log records. Must not throw. */
  onLogs: (logs: CapturedLog[]) => void;
  /** Largest body, on the wire and after decompression, in bytes. Default 16 MiB. */
  maxBodyBytes?: number;
  /** Time to receive a body, milliseconds. Default 10000. */
  requestTimeoutMs?: number;
  /** Told about every request (metrics). Must not throw. */
  onOutcome?: (outcome: IngestOutcome) => void;
  /** The admission guard, when shared with the OTLP/gRPC server (one set of limits). Default: one of its own. */
  guard?: IngestGuard;
  /**
   * Receives the sampled triplets a plugin forwards (`POST /v1/ragwatch/triplets`); without it the
   * route is not served. Must not throw.
   */
  onTriplets?: (triplets: SampledTriplet[]) => void;
  /**
   * End users' feedback (`POST /v1/ragwatch/feedback`, docs/feedback.md); without it the route is not
   * served. `refusal`: why every request is refused (403), e.g. no token on a non-loopback address.
   */
  feedback?: { accept(body: unknown): { ok: true; id: string; polarity: string } | { ok: false; error: string }; refusal?: string };
}

/** Largest feedback body, bytes. */
const MAX_FEEDBACK_BYTES = 16 * 1024;

/** The admission guard of the ingest limits: one largest body, received and decompressed, always fits. */
export function ingestGuardOf(options: IngestGuardOptions & { maxBodyBytes?: number }): IngestGuard {
  const maxBodyBytes = options.maxBodyBytes ?? INGEST_DEFAULTS.maxBodyBytes;
  return new IngestGuard({ ...options, maxInflightBytes: Math.max(options.maxInflightBytes ?? DEFAULT_MAX_INFLIGHT_BYTES, 2 * maxBodyBytes) });
}

const STATUS_REASON: Record<number, IngestReason> = { 400: 'invalid', 413: 'too_large', 415: 'unsupported_media_type' };

/** Builds the ingest app. Its state (concurrency, rate buckets) lives as long as the app. */
export function createIngestApp(options: IngestAppOptions): Hono {
  const maxBodyBytes = options.maxBodyBytes ?? INGEST_DEFAULTS.maxBodyBytes;
  const timeoutMs = options.requestTimeoutMs ?? INGEST_DEFAULTS.requestTimeoutMs;
  const guard = options.guard ?? ingestGuardOf(options);
  const app = new Hono();

  async function handle(c: Context, signal: OtlpSignal): Promise<Response> {
    const endpoint = signal === 'traces' ? '/v1/traces' : '/v1/logs';
    let replyType: OtlpMediaType = responseMediaType(c.req.header('content-type'));
    const done = (response: Response, reason: IngestReason, accepted = 0, rejected = 0): Response => {
      options.onOutcome?.({ endpoint, transport: 'http', status: response.status as IngestStatus, reason, accepted, rejected });
      return response;
    };
    const refuse = (r: Refusal): Response => {
      const headers: Record<string, string> = r.retryAfterSeconds !== undefined ? { 'Retry-After': String(r.retryAfterSeconds) } : {};
      return done(errorResponse(r.status, replyType, r.message, headers), r.reason);
    };

    const refusal = guard.admit(c.req.header('authorization'));
    if (refusal) return refuse(refusal);
    let heldBytes = 0;
    const reserve = (bytes: number): boolean => {
      if (!guard.reserveBytes(bytes)) return false;
      heldBytes += bytes;
      return true;
    };
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new IngestTimeoutError(timeoutMs)), timeoutMs);
    timer.unref();
    try {
      const mediaType = otlpMediaType(c.req.header('content-type'));
      replyType = mediaType;
      const declared = Number(c.req.header('content-length'));
      if (declared > maxBodyBytes) throw new OtlpDecodeError(`request body of ${declared} bytes exceeds ${maxBodyBytes} bytes`, 413);
      if (declared > 0 && guard.inflightBytes + declared > guard.maxInflightBytes) return refuse(bytesRefusal(guard.maxInflightBytes));
      const raw = await readLimited(c.req.raw.body, maxBodyBytes, controller.signal, reserve);
      const body = await decompress(raw, c.req.header('content-encoding'), maxBodyBytes);
      if (body !== raw && !reserve(body.byteLength)) return refuse(bytesRefusal(guard.maxInflightBytes));
      const decoded = signal === 'traces' ? decodeTraces(body, mediaType) : decodeLogs(body, mediaType);
      const items = 'spans' in decoded ? decoded.spans : decoded.logs;
      const over = guard.admitItems(items.length);
      if (over) return refuse(over);
      if (items.length > 0) {
        if ('spans' in decoded) options.onSpans(decoded.spans);
        else options.onLogs(decoded.logs);
      }
      if (decoded.rejected > 0) {
        const partial = { rejected: decoded.rejected, errorMessage: decoded.errorMessage ?? '' };
        return done(exportResponse(signal, replyType, partial), 'partial', items.length, decoded.rejected);
      }
      return done(exportResponse(signal, replyType), 'ok', items.length);
    } catch (err) {
      if (err instanceof OtlpDecodeError) return done(errorResponse(err.status, replyType, err.message), STATUS_REASON[err.status] ?? 'invalid');
      if (err instanceof IngestTimeoutError) return done(errorResponse(408, replyType, err.message, { Connection: 'close' }), 'timeout');
      if (err instanceof IngestBytesExhaustedError) return refuse(bytesRefusal(guard.maxInflightBytes));
      return done(errorResponse(500, replyType, `internal error: ${errorMessage(err)}`), 'internal');
    } finally {
      clearTimeout(timer);
      guard.releaseBytes(heldBytes);
      guard.release();
    }
  }

  /** `POST /v1/ragwatch/triplets`: `{triplets: SampledTriplet[]}` from a plugin, each checked against the wire contract. */
  async function forwarded(c: Context, onTriplets: (t: SampledTriplet[]) => void): Promise<Response> {
    const done = (status: IngestStatus, reason: IngestReason, body: Record<string, unknown>, accepted = 0, rejected = 0, headers: Record<string, string> = {}): Response => {
      options.onOutcome?.({ endpoint: '/v1/ragwatch/triplets', transport: 'http', status, reason, accepted, rejected });
      return c.json(body, status, headers);
    };
    const refusal = guard.admit(c.req.header('authorization'));
    if (refusal) return done(refusal.status, refusal.reason, { error: refusal.message }, 0, 0, refusal.retryAfterSeconds !== undefined ? { 'Retry-After': String(refusal.retryAfterSeconds) } : {});
    let held = 0;
    const reserve = (bytes: number): boolean => {
      if (!guard.reserveBytes(bytes)) return false;
      held += bytes;
      return true;
    };
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new IngestTimeoutError(timeoutMs)), timeoutMs);
    timer.unref();
    try {
      if ((c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase() !== 'application/json') return done(415, 'unsupported_media_type', { error: 'Content-Type must be application/json' });
      const raw = await readLimited(c.req.raw.body, maxBodyBytes, controller.signal, reserve);
      const body = await decompress(raw, c.req.header('content-encoding'), maxBodyBytes);
      let parsed: unknown;
      try {
        parsed = JSON.parse(body.toString('utf8'));
      } catch (err) {
        return done(400, 'invalid', { error: `body is not JSON: ${errorMessage(err)}` });
      }
      const list = (parsed as { triplets?: unknown } | null)?.triplets;
      if (!Array.isArray(list)) return done(400, 'invalid', { error: 'body must be {"triplets": [...]}' });
      if (list.length > MAX_FORWARDED) return done(413, 'too_large', { error: `at most ${MAX_FORWARDED} triplets per request` });
      const valid: SampledTriplet[] = [];
      let firstError: string | undefined;
      for (const item of list) {
        const r = sampledTripletSchema.safeParse(item);
        if (r.success) valid.push(r.data);
        else firstError ??= `key "${r.error.issues[0]!.path.join('.')}": ${r.error.issues[0]!.message}`;
      }
      const over = guard.admitItems(valid.length);
      if (over) return done(over.status, over.reason, { error: over.message }, 0, 0, over.retryAfterSeconds !== undefined ? { 'Retry-After': String(over.retryAfterSeconds) } : {});
      if (valid.length > 0) onTriplets(valid);
      const rejected = list.length - valid.length;
      return done(200, rejected > 0 ? 'partial' : 'ok', { accepted: valid.length, rejected, ...(firstError ? { errorMessage: firstError } : {}) }, valid.length, rejected);
    } catch (err) {
      if (err instanceof OtlpDecodeError) return done(err.status, STATUS_REASON[err.status] ?? 'invalid', { error: err.message });
      if (err instanceof IngestTimeoutError) return done(408, 'timeout', { error: err.message });
      if (err instanceof IngestBytesExhaustedError) {
        const r = bytesRefusal(guard.maxInflightBytes);
        return done(r.status, r.reason, { error: r.message }, 0, 0, { 'Retry-After': String(r.retryAfterSeconds ?? 1) });
      }
      return done(500, 'internal', { error: `internal error: ${errorMessage(err)}` });
    } finally {
      clearTimeout(timer);
      guard.releaseBytes(held);
      guard.release();
    }
  }

  /** `POST /v1/ragwatch/feedback`: one feedback item as JSON; 202 once counted and kept, 4xx with the reason. */
  async function feedback(c: Context, f: NonNullable<IngestAppOptions['feedback']>): Promise<Response> {
    const done = (status: IngestStatus, reason: IngestReason, body: Record<string, unknown>, headers: Record<string, string> = {}): Response => {
      options.onOutcome?.({ endpoint: '/v1/ragwatch/feedback', transport: 'http', status, reason, accepted: status === 202 ? 1 : 0, rejected: status === 400 ? 1 : 0 });
      return c.json(body, status, headers);
    };
    if (f.refusal !== undefined) return done(403, 'unauthorized', { error: f.refusal });
    const refusal = guard.admit(c.req.header('authorization'));
    if (refusal) return done(refusal.status, refusal.reason, { error: refusal.message }, refusal.retryAfterSeconds !== undefined ? { 'Retry-After': String(refusal.retryAfterSeconds) } : {});
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new IngestTimeoutError(timeoutMs)), timeoutMs);
    timer.unref();
    try {
      if ((c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase() !== 'application/json') return done(415, 'unsupported_media_type', { error: 'Content-Type must be application/json' });
      const raw = await readLimited(c.req.raw.body, MAX_FEEDBACK_BYTES, controller.signal, () => true);
      let parsed: unknown;
      try {
        parsed = JSON.parse(raw.toString('utf8'));
      } catch (err) {
        return done(400, 'invalid', { error: `body is not JSON: ${errorMessage(err)}` });
      }
      const r = f.accept(parsed);
      return r.ok ? done(202, 'ok', { accepted: true, id: r.id, polarity: r.polarity }) : done(400, 'invalid', { error: r.error });
    } catch (err) {
      if (err instanceof OtlpDecodeError) return done(err.status === 413 ? 413 : 400, err.status === 413 ? 'too_large' : 'invalid', { error: err.message });
      if (err instanceof IngestTimeoutError) return done(408, 'timeout', { error: err.message });
      return done(500, 'internal', { error: `internal error: ${errorMessage(err)}` });
    } finally {
      clearTimeout(timer);
      guard.release();
    }
  }

  app.post('/v1/traces', (c) => handle(c, 'traces'));
  app.post('/v1/logs', (c) => handle(c, 'logs'));
  const onTriplets = options.onTriplets;
  if (onTriplets) app.post('/v1/ragwatch/triplets', (c) => forwarded(c, onTriplets));
  const onFeedback = options.feedback;
  if (onFeedback) app.post('/v1/ragwatch/feedback', (c) => feedback(c, onFeedback));
  return app;
}

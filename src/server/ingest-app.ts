/**
 * OTLP/HTTP ingest (`POST /v1/traces`): 200 with partial success, 400 with a reason, 413 over the
 * body limit (after decompression), 415 for unsupported media, 503 + Retry-After when saturated.
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { decodeTraceRequest } from '../capture/otlp/traces.ts';
import type { CapturedSpan } from '../capture/types.ts';
import { OtlpDecodeError, errorMessage } from '../errors.ts';
import { decompress, mediaType, parseJsonBody, readLimited } from './otlp-body.ts';

/** Options of {@link createIngestApp}. */
export interface IngestAppOptions {
  /** Receives decoded spans. Must not throw. */
  onSpans: (spans: CapturedSpan[]) => void;
  /** Largest body accepted, after decompression, in bytes. */
  maxBodyBytes: number;
  /** Requests processed at once before answering 503. */
  maxConcurrentRequests: number;
  /** Optional bearer token required on `/v1/*`. */
  bearerToken?: string;
  /** Counts rejected requests by reason. */
  onReject?: (reason: string) => void;
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** Google RPC Status body, as OTLP/HTTP specifies for errors. */
function statusBody(c: Context, status: 400 | 401 | 413 | 415 | 503, message: string) {
  return c.json({ code: status === 503 ? 14 : status === 401 ? 16 : 3, message }, status);
}

export function createIngestApp(options: IngestAppOptions): Hono {
  const app = new Hono();
  const expected = options.bearerToken ? digest(`Bearer ${options.bearerToken}`) : undefined;
  let active = 0;

  app.use('/v1/*', async (c, next) => {
    if (expected) {
      const given = digest(c.req.header('authorization') ?? '');
      if (!timingSafeEqual(given, expected)) {
        options.onReject?.('unauthorized');
        return statusBody(c, 401, 'missing or invalid bearer token');
      }
    }
    if (active >= options.maxConcurrentRequests) {
      options.onReject?.('saturated');
      c.header('Retry-After', '1');
      return statusBody(c, 503, 'ragwatch is saturated; retry later');
    }
    active++;
    try {
      await next();
    } finally {
      active--;
    }
    return undefined;
  });

  app.post('/v1/traces', async (c) => {
    try {
      const type = mediaType(c.req.header('content-type'));
      if (type !== 'application/json') {
        throw new OtlpDecodeError(`unsupported Content-Type "${type || '(none)'}"; use application/json`, 415);
      }
      const raw = await readLimited(c.req.raw.body, options.maxBodyBytes);
      const body = await decompress(raw, c.req.header('content-encoding'), options.maxBodyBytes);
      const decoded = decodeTraceRequest(parseJsonBody(body));
      if (decoded.spans.length > 0) options.onSpans(decoded.spans);
      if (decoded.rejected > 0) {
        return c.json({ partialSuccess: { rejectedSpans: decoded.rejected, errorMessage: decoded.errorMessage ?? '' } });
      }
      return c.json({});
    } catch (err) {
      if (err instanceof OtlpDecodeError) {
        options.onReject?.(`http_${err.status}`);
        return statusBody(c, err.status, err.message);
      }
      options.onReject?.('invalid');
      return statusBody(c, 400, `could not decode request: ${errorMessage(err)}`);
    }
  });

  return app;
}

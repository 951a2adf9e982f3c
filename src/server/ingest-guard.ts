/**
 * Admission control for `/v1/*`, checked before a body is read: bearer token (constant time),
 * concurrency limit (503) and request-rate limit (429), both with `Retry-After`; plus the
 * item-rate limit (spans + log records) applied once a batch is decoded.
 * @module
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { serverSection } from '../config/sections/server.ts';
import { TokenBucket } from './token-bucket.ts';
import { eventLoopDelayMs } from './event-loop-delay.ts';

/** Ingest defaults, taken from the config schema so they are defined once. */
export const INGEST_DEFAULTS = serverSection.parse({});

/** Options of {@link IngestGuard}; everything optional (no token, no rate limits). */
export interface IngestGuardOptions {
  /** Bearer token required in `Authorization`. Default: none. */
  bearerToken?: string;
  /** Requests processed at once before answering 503. Default 64. */
  maxConcurrentRequests?: number;
  /** Requests per second before answering 429. Default: unlimited. */
  rateLimitRequestsPerSecond?: number;
  /** Spans + log records per second before answering 429. Default: unlimited. */
  rateLimitItemsPerSecond?: number;
  /** Burst of both rate limits, in seconds of rate. Default 1. */
  rateLimitBurstSeconds?: number;
  /**
   * Bytes of request bodies held at once (as received, plus the decompressed copy) before answering
   * 503. Default {@link DEFAULT_MAX_INFLIGHT_BYTES}.
   */
  maxInflightBytes?: number;
  /** Refuse new requests (503) while the event loop is later than this, milliseconds; 0 = never. Default 40. */
  maxEventLoopDelayMs?: number;
  /** Why the pipeline cannot take more now (e.g. the capture buffer is nearly full), or undefined. Refused whole with 503, so traces are not cut. */
  saturation?: () => string | undefined;
  /**
   * Requests in progress needed before a late event loop sheds: lateness with no queue of our own is a
   * starved host or one long task, which refusing a lone request cannot cure. Default 2.
   */
  minActiveToShed?: number;
  /** The event loop's recent delay, milliseconds (default: this process's, {@link eventLoopDelayMs}). */
  loopDelayMs?: () => number;
}

/**
 * Default bound of body bytes in flight: 64 MiB. Without it the bound was `maxConcurrentRequests`
 * × `maxBodyBytes` × 2 (64 × 16 MiB, twice with gzip) — 2 GiB — before any decoding.
 */
export const DEFAULT_MAX_INFLIGHT_BYTES = 64 * 1024 * 1024;

/** A refusal for a request whose body bytes do not fit the in-flight budget. */
export function bytesRefusal(limit: number): Refusal {
  return { status: 503, reason: 'saturated', message: `ragwatch is saturated (${limit} bytes of request bodies in progress); retry later`, retryAfterSeconds: 1 };
}

/** Why a request was refused, with what to answer. */
export interface Refusal {
  status: 401 | 429 | 503;
  reason: 'unauthorized' | 'rate_limited' | 'saturated';
  message: string;
  /** Seconds for `Retry-After` (429/503). */
  retryAfterSeconds?: number;
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}

/** Stateful admission control shared by the ingest endpoints. */
export class IngestGuard {
  readonly #expected: Buffer | undefined;
  readonly #maxActive: number;
  readonly #requests: TokenBucket | undefined;
  readonly #items: TokenBucket | undefined;
  readonly #maxBytes: number;
  readonly #maxDelayMs: number;
  readonly #delayMs: () => number;
  readonly #saturation: () => string | undefined;
  readonly #minActiveToShed: number;
  #active = 0;
  #bytes = 0;

  constructor(options: IngestGuardOptions = {}) {
    const burstSeconds = options.rateLimitBurstSeconds ?? INGEST_DEFAULTS.rateLimitBurstSeconds;
    this.#expected = options.bearerToken ? digest(`Bearer ${options.bearerToken}`) : undefined;
    this.#maxActive = options.maxConcurrentRequests ?? INGEST_DEFAULTS.maxConcurrentRequests;
    this.#requests = options.rateLimitRequestsPerSecond ? new TokenBucket({ ratePerSecond: options.rateLimitRequestsPerSecond, burstSeconds }) : undefined;
    this.#items = options.rateLimitItemsPerSecond ? new TokenBucket({ ratePerSecond: options.rateLimitItemsPerSecond, burstSeconds }) : undefined;
    this.#maxBytes = options.maxInflightBytes ?? DEFAULT_MAX_INFLIGHT_BYTES;
    this.#maxDelayMs = options.maxEventLoopDelayMs ?? INGEST_DEFAULTS.maxEventLoopDelayMs;
    this.#saturation = options.saturation ?? (() => undefined);
    this.#minActiveToShed = options.minActiveToShed ?? 2;
    this.#delayMs = options.loopDelayMs ?? (this.#maxDelayMs > 0 ? eventLoopDelayMs : () => 0);
  }

  /** Largest number of body bytes held at once. */
  get maxInflightBytes(): number {
    return this.#maxBytes;
  }

  /** Body bytes currently held by admitted requests. */
  get inflightBytes(): number {
    return this.#bytes;
  }

  /** Reserves `n` body bytes for an admitted request; false (nothing reserved) when they do not fit. */
  reserveBytes(n: number): boolean {
    if (this.#bytes + n > this.#maxBytes) return false;
    this.#bytes += n;
    return true;
  }

  /** Returns bytes reserved with {@link reserveBytes}. */
  releaseBytes(n: number): void {
    this.#bytes = Math.max(0, this.#bytes - n);
  }

  /** Requests currently admitted and not yet released. */
  get active(): number {
    return this.#active;
  }

  /**
   * Admits a request or says why not. An admitted request holds a concurrency slot until
   * {@link release}.
   */
  admit(authorization: string | undefined): Refusal | undefined {
    // Hashing both sides gives equal lengths, so the compare is constant-time whatever was sent.
    if (this.#expected && !timingSafeEqual(digest(authorization ?? ''), this.#expected)) {
      return { status: 401, reason: 'unauthorized', message: 'missing or invalid bearer token' };
    }
    const delay = this.#maxDelayMs > 0 && this.#active >= this.#minActiveToShed ? this.#delayMs() : 0;
    if (delay > this.#maxDelayMs) {
      return { status: 503, reason: 'saturated', message: `ragwatch is busy (its event loop ran ${Math.round(delay)} ms late, server.maxEventLoopDelayMs ${this.#maxDelayMs}); retry later`, retryAfterSeconds: 1 };
    }
    const full = this.#saturation();
    if (full !== undefined) return { status: 503, reason: 'saturated', message: `ragwatch is saturated (${full}); retry later`, retryAfterSeconds: 1 };
    if (this.#active >= this.#maxActive) {
      return { status: 503, reason: 'saturated', message: `ragwatch is saturated (${this.#maxActive} requests in progress); retry later`, retryAfterSeconds: 1 };
    }
    const wait = this.#requests?.take(1) ?? 0;
    if (wait > 0) return { status: 429, reason: 'rate_limited', message: 'request rate limit exceeded; retry later', retryAfterSeconds: wait };
    this.#active++;
    return undefined;
  }

  /** Releases the slot of an admitted request. */
  release(): void {
    if (this.#active > 0) this.#active--;
  }

  /** Charges a decoded batch to the item-rate limit; a refusal means the batch is not accepted. */
  admitItems(count: number): Refusal | undefined {
    if (count === 0) return undefined;
    const wait = this.#items?.take(count) ?? 0;
    if (wait > 0) return { status: 429, reason: 'rate_limited', message: `span/log rate limit exceeded (${count} items); retry later`, retryAfterSeconds: wait };
    return undefined;
  }
}

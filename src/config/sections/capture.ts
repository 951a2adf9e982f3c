import { z } from 'zod';

/** Capture: trace assembly bounds and convention mapping. */
export const captureSection = z
  .object({
    /** Service name used when a span's resource has no `service.name`. */
    defaultService: z.string().min(1).default('unknown_service'),
    /** Traces buffered at once while waiting for their spans; new traces beyond it are dropped (counted). */
    maxTraces: z.number().int().positive().default(5_000),
    /** Spans kept per trace; further spans of that trace are dropped (counted). */
    maxSpansPerTrace: z.number().int().positive().default(256),
    /** A trace is assembled this long after its last span arrived, milliseconds. */
    traceIdleMs: z.number().int().positive().default(1_500),
    /** Hard cap on how long a trace may stay buffered, milliseconds. */
    traceMaxAgeMs: z.number().int().positive().default(30_000),
    /** Longest text kept per field (query, source, response), characters; longer text is truncated. */
    maxTextChars: z.number().int().positive().default(32_000),
    /** Routes kept as metric/sampling labels (from `http.route` or `rag.route`); others become `other`. */
    routes: z.array(z.string()).default([]),
  })
  .strict();

import { z } from 'zod';

const regex = z.string().refine(
  (v) => {
    try {
      new RegExp(v);
      return true;
    } catch {
      return false;
    }
  },
  { message: 'must be a valid JavaScript regular expression' },
);

/** The `custom` convention: attribute names set by the app, and sources cut out of the prompt. */
export const customConventionSection = z
  .object({
    /** Span attributes holding the user's question, in priority order. Default `[rag.query]`. */
    queryAttributes: z.array(z.string().min(1)).default(['rag.query']),
    /** Span attributes holding the response; a span with one of them is a generation. Default `[rag.response]`. */
    responseAttributes: z.array(z.string().min(1)).default(['rag.response']),
    /** Span attributes holding the sources as JSON (`[{id, content, score}]` or strings). Default `[rag.sources]`. */
    sourcesAttributes: z.array(z.string().min(1)).default(['rag.sources']),
    /**
     * Sources from the prompt: regex whose `context` group (else group 1) is the context block in a
     * system or user message, used when a generation has no retrieval span. Default `""` (off).
     */
    promptContextPattern: regex.default(''),
    /** Regex matching one document inside the context block: `content` group (else group 1), optional `id` group. Default: `[id] text` blocks. */
    promptDocumentPattern: regex.default(String.raw`\[(?<id>[^\]\n]{1,40})\]\s*(?<content>[\s\S]*?)(?=\n\s*\[[^\]\n]{1,40}\]|$)`),
    /** Regex whose `query` group (else group 1) is the question, when the context block is in the user message. Default `""` (the user message minus the block). */
    promptQueryPattern: regex.default(''),
  })
  .strict();

/** Capture: trace assembly bounds and convention mapping. */
export const captureSection = z
  .object({
    /** Service name used when a span's resource has no `service.name`. */
    defaultService: z.string().min(1).default('unknown_service'),
    /** Traces buffered at once while waiting for their spans; new traces beyond it are dropped (counted). */
    maxTraces: z.number().int().positive().default(5_000),
    /** Spans kept per trace; further spans of that trace are dropped (counted). */
    maxSpansPerTrace: z.number().int().positive().default(256),
    /**
     * Spans and log records buffered across all traces (waiting for assembly, plus recently
     * assembled traces kept as context for late spans); new ones beyond it are dropped (counted as
     * `max_buffered_spans`). Bounds capture memory: about 1–3 KB per span. At 90 % of it `ragwatch
     * start` refuses new OTLP requests whole (503, Retry-After) so traces are not cut. 10000 holds
     * 1.5 s of ~6,600 spans/s, more than one process judges. Default 10000.
     */
    maxBufferedSpans: z.number().int().positive().default(10_000),
    /** A trace is assembled this long after its last span arrived, milliseconds. */
    traceIdleMs: z.number().int().positive().default(1_500),
    /** Hard cap on how long a trace may stay buffered, milliseconds. */
    traceMaxAgeMs: z.number().int().positive().default(30_000),
    /** Longest text kept per field (query, source, response), characters; longer text is truncated. */
    maxTextChars: z.number().int().positive().default(32_000),
    /**
     * Span attributes that identify one request across traces (e.g. a request id propagated by the
     * app): traces sharing a value are assembled together. Default `[rag.request_id]`.
     */
    joinAttributes: z.array(z.string().min(1)).default(['rag.request_id']),
    /** Also assemble a trace together with the traces its spans link to. Default true. */
    joinLinks: z.boolean().default(true),
    /** The `custom` convention (attribute names, sources from the prompt). */
    custom: customConventionSection.prefault({}),
    /** Chat conversations (docs/capture.md): where the id is, and how much of the earlier turns is kept. */
    conversation: z
      .object({
        /** Span attributes holding a conversation id, read before the conventions' (`session.id`, `gen_ai.conversation.id`, …). Default none. */
        attributes: z.array(z.string().min(1)).default([]),
        /** Earlier messages kept per triplet (the newest; the rest counted in `cut`). Default 20. */
        maxTurns: z.number().int().min(0).default(20),
        /** Characters kept per earlier message. Default 2000. */
        maxChars: z.number().int().positive().default(2_000),
      })
      .strict()
      .prefault({}),
    /** Routes kept as metric/sampling labels (from `http.route` or `rag.route`); others become `other`. Empty: the first 20 distinct routes seen. */
    routes: z.array(z.string()).default([]),
  })
  .strict();

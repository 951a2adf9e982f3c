import { z } from 'zod';

/** Price of one model's tokens, per million tokens, in the currency of your choice. */
const priceSchema = z
  .object({
    /** Price per million input (prompt) tokens. */
    inputPerMillion: z.number().nonnegative(),
    /** Price per million output (completion) tokens. */
    outputPerMillion: z.number().nonnegative(),
  })
  .strict();

/** LLM judge: client limits, retries, circuit breaker, caches, prices. */
const llmSection = z
  .object({
    /**
     * Fixed per-request timeout in milliseconds. Default none: each request's budget follows the
     * endpoint's observed pace (prompt and output size × milliseconds per token, ×3), at least 30 s and
     * at most 30 min, so a small model on a CPU is not timed out by a budget made for a hosted one.
     */
    timeoutMs: z.number().int().positive().optional(),
    /**
     * The judge model's context window in tokens (llama.cpp `--ctx-size`, Ollama `num_ctx`, vLLM
     * `--max-model-len`). Default: unknown until the endpoint names it in a refusal; then a prompt that
     * does not fit with room for its answer fails as `context_exceeded` instead of being sent.
     */
    contextTokens: z.number().int().min(256).optional(),
    /**
     * Judge the retrieval as well as the answer: `source_precision`, `source_fact_precision` and
     * `source_query_coverage`. `false`: two calls a triplet instead of three, a shorter first call (no
     * source facts), and those three metrics skipped as `disabled`. Default true.
     */
    sourceMetrics: z.boolean().default(true),
    /** Retries of one request on 408/409/425/429/5xx, timeouts and network errors. Default 3. */
    maxRetries: z.number().int().min(0).max(10).default(3),
    /** First backoff delay in milliseconds (doubles per retry, full jitter). Default 500. */
    retryBaseMs: z.number().int().positive().default(500),
    /** Longest backoff delay in milliseconds. Default 20000. */
    retryMaxMs: z.number().int().positive().default(20_000),
    /** Longest `Retry-After` honoured in milliseconds; a longer one fails the triplet as retriable. Default 60000. */
    maxRetryAfterMs: z.number().int().positive().default(60_000),
    /** HTTP requests in flight at once (across all triplets). Default 4. */
    maxConcurrentRequests: z.number().int().positive().default(4),
    /** Token budget per minute (estimated before, corrected after each call); 0 = unlimited. Default 0. */
    tokensPerMinute: z.number().int().min(0).default(0),
    /** Most output tokens per call. Default 4096. */
    maxOutputTokens: z.number().int().positive().default(4096),
    /** Sampling temperature. Default 0. */
    temperature: z.number().min(0).max(2).default(0),
    /** Seed sent for reproducible sampling where the endpoint supports it; null = not sent. Default 0. */
    seed: z.number().int().nullable().default(0),
    /** `json_schema` (strict structured output) or `json_object` (JSON mode + validation). Default `json_schema`; when the endpoint refuses it, falls back once to `json_object` with the schema beside it (llama-cpp-python's grammar), then plain `json_object`, then none (docs/judges.md). */
    structuredOutput: z.enum(['json_schema', 'json_object']).default('json_schema'),
    /** Consecutive failed requests (after retries) that open the circuit breaker. Default 5. */
    breakerFailureThreshold: z.number().int().positive().default(5),
    /** How long the breaker stays open before one trial request, in milliseconds. Default 30000. */
    breakerCooldownMs: z.number().int().positive().default(30_000),
    /** Source-fact decompositions cached by content hash (LRU entries). Default 10000. */
    factCacheSize: z.number().int().min(0).default(10_000),
    /** Whole score results cached by triplet text + judge config (LRU entries). Default 1000. */
    resultCacheSize: z.number().int().min(0).default(1000),
    /** Sentence embeddings for self-distinctness: the bundled model (`embedded`) or the endpoint's embeddings API (`endpoint`). Default `embedded`. */
    embeddings: z.enum(['embedded', 'endpoint']).default('embedded'),
    /** Embeddings model when `embeddings: endpoint`. Default `text-embedding-3-small`. */
    embeddingModel: z.string().min(1).default('text-embedding-3-small'),
    /** Price table by model name, for `ragwatch_judge_cost_total`. Default none (no cost series). */
    prices: z.record(z.string(), priceSchema).default({}),
  })
  .strict();

/** Local judge: the model, its cache and what it may cost (DESIGN §8, docs/judges.md). */
const localSection = z
  .object({
    /** Model name in the cache (`ragwatch models list`). Default `qwen2.5-coder-1.5b-instruct`. */
    model: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,63}$/).default('qwen2.5-coder-1.5b-instruct'),
    /** Model cache directory (env `RAGWATCH_MODEL_CACHE`). Default `~/.cache/ragwatch/models`. */
    cacheDir: z.string().min(1).optional(),
    /** Threads evaluating the model (llama.cpp's own, off the event loop). Default 2. */
    threads: z.number().int().min(1).max(64).default(2),
    /** Context window in tokens: sources beyond it are cut at the end. Default 4096. */
    contextTokens: z.number().int().min(512).max(32_768).default(4096),
    /** `auto` uses a GPU build of the runtime when one is installed; `off` stays on the CPU. Default `auto`. */
    gpu: z.enum(['auto', 'off']).default('auto'),
    /** Answers waiting for or in the model at once; more are shed (their `claim_support` skipped and counted). Default 16. */
    maxQueue: z.number().int().min(1).max(10_000).default(16),
    /** Answers judged per minute at most (a CPU budget); 0 = as fast as the model goes. Default 0. */
    answersPerMinute: z.number().min(0).default(0),
    /** An answer that waited longer than this for the model is shed instead of judged late, in milliseconds. Default 120000. */
    maxWaitMs: z.number().int().positive().default(120_000),
    /** Most response sentences asked about per answer. Default 8. */
    maxSentences: z.number().int().min(1).max(64).default(8),
  })
  .strict();

/** Judges: how sampled triplets are scored. */
export const judgeSection = z
  .object({
    /**
     * `embedded` (bundled embedding model and lexical check, no network), `local` (an open model run in
     * process on the CPU, `judge.local`) or `llm` (any OpenAI-compatible endpoint). Default: `llm` when
     * an endpoint is configured (`baseUrl` or `apiKey` set); else `local` when `ragwatch start` or
     * `ragwatch scorer` finds `judge.local.model` in the model cache; else `embedded` (DESIGN §8).
     */
    kind: z.enum(['embedded', 'local', 'llm']).optional(),
    /** Judge model name for `llm`. Default `gpt-4o-mini`. */
    model: z.string().min(1).default('gpt-4o-mini'),
    /** OpenAI-compatible base URL (env `OPENAI_BASE_URL`). Default none (OpenAI's). */
    baseUrl: z.string().url().optional(),
    /** API key (env `OPENAI_API_KEY`); never printed. Default none. */
    apiKey: z.string().optional(),
    /** Triplets scored concurrently. Default 2. */
    concurrency: z.number().int().positive().default(2),
    llm: llmSection.prefault({}),
    /** Privacy (HCAT §4): `pii_free` on every scored answer, both judges (docs/judges.md). */
    pii: z
      .object({
        /** Emit `pii_free` (1 = the response discloses no personal data of the types below). Default true. */
        enabled: z.boolean().default(true),
        /** Entity types that count (`email`, `phone`, `payment_card`, `iban`, `us_ssn`, `ip_address`, `secret`, custom recognizer names); empty = all. Default all. */
        types: z.array(z.string().regex(/^[a-z][a-z0-9_]{0,31}$/)).default([]),
        /** Count a value the user's own query contained (an answer repeating the user's e-mail) as disclosed. Default false. */
        countQueryPii: z.boolean().default(false),
      })
      .strict()
      .prefault({}),
    local: localSection.prefault({}),
    embedded: z
      .object({
        /**
         * Cosine similarity at or above which two response sentences count as repeats
         * (self-distinctness, both judges). Default 0.8, chosen by measurement (docs/judges.md).
         */
        similarityThreshold: z.number().min(0).max(1).default(0.8),
        /**
         * With `kind: llm`, also score every triplet with the embedded judge (its own ScoreRecord and
         * `judge="embedded"` series; it keeps scoring while the LLM endpoint is down). Costs the model's
         * memory and ~20–170 ms CPU per triplet. Ignored with `kind: embedded`. Default false.
         */
        alongside: z.boolean().default(false),
        /**
         * Worker threads running the bundled embedding model (both judges); each loads its own copy
         * (≈ 150 MB RSS; on the main thread the model takes ≈ 120 MB). A triplet's sentences are split
         * across them (≈ 2× faster on 2 free cores), and inference never blocks the event loop. 0 runs
         * the model on the main thread. Default 2.
         */
        threads: z.number().int().min(0).max(16).default(2),
        /**
         * Completeness (docs/judges.md): a source sentence counts as relevant to the query when its best
         * cosine to a query sentence reaches this (the most query-like one always counts). Default 0.45,
         * measured on the HaluEval development file.
         */
        completenessRelevance: z.number().min(0).max(1).default(0.45),
      })
      .strict()
      .prefault({}),
  })
  .strict()
  .transform((j) => ({
    ...j,
    kind: j.kind ?? (j.baseUrl !== undefined || j.apiKey !== undefined ? ('llm' as const) : ('embedded' as const)),
    /** True when `kind` was not configured: the scoring roles may then pick the local judge (its model is cached). */
    kindDefaulted: j.kind === undefined,
  }));

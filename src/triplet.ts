/**
 * The wire contract (DESIGN §5): the one data type that flows through ragwatch, and the score
 * record the scorer emits. Every value crossing a process border (Kafka, files, HTTP) is
 * validated with these zod schemas.
 * @module
 */
import { z } from 'zod';

/**
 * Version of the Triplet/ScoreRecord JSON schema; sent as the Kafka `schema-version` header. 2 added
 * the optional `conversation` (issue 33): records of version 1 are read unchanged.
 */
export const SCHEMA_VERSION = '2';

/** Schema versions this build reads. */
export const READABLE_SCHEMA_VERSIONS: readonly string[] = ['1', '2'];

/** The instrumentation convention a triplet was mapped from. */
export const CONVENTIONS = ['genai', 'openinference', 'traceloop', 'vercel-ai', 'langfuse', 'haystack', 'custom'] as const;
export type Convention = (typeof CONVENTIONS)[number];

/** LLM-judge metrics (THELMA + claim-level faithfulness), all in [0,1], higher is better. */
export const LLM_METRICS = [
  'source_precision',
  'source_fact_precision',
  'source_query_coverage',
  'response_precision',
  'response_query_coverage',
  'response_self_distinctness',
  'groundedness',
  'faithfulness',
  'hallucination_free',
  'non_toxic',
] as const;

/** Embedded-judge metrics (bundled embedding model + lexical checks). */
export const EMBEDDED_METRICS = [
  'response_self_distinctness',
  'context_relevancy',
  'answer_relevancy',
  'grounding_lexical',
  'completeness',
  'completeness_distribution',
] as const;

/** Local-judge metrics: every embedded metric (scored beside it) and the model's per-sentence support. */
export const LOCAL_METRICS = [...EMBEDDED_METRICS, 'claim_support'] as const;

/** Metrics the scorer adds to every record, whichever judge scored it (`judge.pii`). */
export const SCORER_METRICS = ['pii_free'] as const;

/** Every built-in metric name. A configuration adds its evaluators' names: list metrics from `metric-registry.ts`, not from here. */
export const METRIC_NAMES = [...new Set([...LLM_METRICS, ...LOCAL_METRICS, ...SCORER_METRICS])] as const;
/** A built-in metric's name. */
export type BuiltinMetricName = (typeof LLM_METRICS)[number] | (typeof LOCAL_METRICS)[number] | (typeof SCORER_METRICS)[number];
/**
 * A metric name: a built-in's or a configured evaluator's (the registry in `metric-registry.ts` knows
 * which exist). The `string & {}` keeps the built-ins' names suggested without closing the set.
 */
export type MetricName = BuiltinMetricName | (string & {});

/**
 * What a metric name looks like (a built-in's or an evaluator's): lower snake case, at most 48
 * characters — a Prometheus label value, a path segment and, in PascalCase, part of an alert name.
 */
export const METRIC_NAME_PATTERN = /^[a-z][a-z0-9_]{0,47}$/;
// The wire accepts any well-formed name: a reader ignores the metrics its registry does not know
// (docs/kafka.md) instead of rejecting a newer scorer's records.
const metricNameSchema = z.string().regex(METRIC_NAME_PATTERN, 'a metric name (lower snake case, at most 48 characters)');

/** Scores of one record by metric name, each in [0,1]. */
export type MetricScores = Record<string, number>;
/** Why a metric has no score, by metric name. */
export type MetricSkips = Record<string, string>;

/** One retrieved source (chunk) as the RAG service saw it. */
export const sourceSchema = z.object({
  id: z.string().optional(),
  content: z.string(),
  score: z.number().optional(),
  metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
});
export type Source = z.infer<typeof sourceSchema>;

/** Latency of one generation; every duration in milliseconds. */
export const latencySchema = z.object({
  ttftMs: z.number().nonnegative().optional(),
  tpotMs: z.number().nonnegative().optional(),
  durationMs: z.number().nonnegative(),
  inputTokens: z.number().int().nonnegative().optional(),
  outputTokens: z.number().int().nonnegative().optional(),
});
export type Latency = z.infer<typeof latencySchema>;

/** The conversation a chat turn belongs to: its id (when the app exports one), its turn and the earlier turns. */
export const conversationSchema = z.object({
  /** The exported conversation (session) id, pseudonymised at capture; absent: anonymous. */
  id: z.string().min(1).max(256).optional(),
  /** 1-based turn of the answered question. */
  turn: z.number().int().positive(),
  /** Earlier user and assistant messages, oldest first, bounded and redacted. */
  history: z.array(z.object({ role: z.enum(['user', 'assistant']), content: z.string() })),
  /** The question as the user typed it, when the app condensed it into the standalone `query`. */
  typedQuery: z.string().optional(),
  /** Messages and characters cut by capture.conversation bounds. */
  cut: z.object({ turns: z.number().int().nonnegative(), chars: z.number().int().nonnegative() }).optional(),
});
export type Conversation = z.infer<typeof conversationSchema>;

/** One (query, sources, response) observation of the RAG service, with its latency. */
export const tripletSchema = z.object({
  id: z.string().min(1),
  traceId: z.string().min(1),
  spanId: z.string().min(1),
  service: z.string(),
  route: z.string().optional(),
  model: z.string().optional(),
  /** The service's release: the resource's `service.version`, where the SDK sets it. */
  release: z.string().optional(),
  /** The model provider's id of the generation (`gen_ai.response.id`), when the span carries one: evaluation events and feedback name it. */
  responseId: z.string().min(1).max(256).optional(),
  timestamp: z.string(),
  query: z.string(),
  sources: z.array(sourceSchema),
  response: z.string(),
  latency: latencySchema,
  convention: z.enum(CONVENTIONS),
  redactions: z.record(z.string(), z.number().int().nonnegative()).optional(),
  /** Redaction policy applied at capture (`<version>+<policy hash>`, or `off`), for audits. */
  redactionPolicy: z.string().optional(),
  /**
   * The attributes the sampling configuration reads (rules, strata, feedback), copied at capture from the
   * generation span, its ancestors, the root span or the resource: at most 64, scalars, strings of at most
   * 256 characters, identifiers as their pseudonyms, text redacted.
   */
  attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  /** `probe`: asked by ragwatch's own ground-truth probes (trace id marked); absent for production traffic. */
  origin: z.literal('probe').optional(),
  /** A chat turn's conversation (schema 2); `query` is then the standalone question when the app made one. */
  conversation: conversationSchema.optional(),
});
export type Triplet = z.infer<typeof tripletSchema>;

/** How a triplet was sampled: `weight = 1/p` makes every aggregate unbiased. */
export const samplingSchema = z.object({
  weight: z.number().positive().finite(),
  stratum: z.string(),
  rule: z.string(),
});
export type SamplingInfo = z.infer<typeof samplingSchema>;

export const sampledTripletSchema = tripletSchema.extend({ sampling: samplingSchema });
export type SampledTriplet = z.infer<typeof sampledTripletSchema>;

export const judgeKindSchema = z.enum(['llm', 'embedded', 'local']);
export type JudgeKind = z.infer<typeof judgeKindSchema>;

const scoreValue = z.number().min(0).max(1);

/** Token/latency cost of scoring one triplet. */
export const usageSchema = z.object({
  calls: z.number().int().nonnegative(),
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  durationMs: z.number().nonnegative(),
});
export type Usage = z.infer<typeof usageSchema>;

/** Per-component verdicts that explain a score (THELMA decompositions and matches). */
export const detailsSchema = z.object({
  claims: z
    .array(
      z.object({
        text: z.string(),
        verdict: z.enum(['supported', 'contradicted', 'not_in_sources']).optional(),
        essential: z.boolean().optional(),
        /** The local judge's probability that the sources support the claim (from the model's yes/no token probabilities). */
        support: z.number().min(0).max(1).optional(),
      }),
    )
    .default([]),
  subQuestions: z
    .array(z.object({ text: z.string(), coveredBySources: z.boolean().optional(), coveredByResponse: z.boolean().optional() }))
    .default([]),
  sources: z.array(z.object({ index: z.number().int(), essential: z.boolean().optional() })).default([]),
  redundantSentences: z.array(z.tuple([z.number().int(), z.number().int()])).default([]),
  /** Response tokens (numbers, entities) that appear nowhere in the sources (embedded judge). */
  unsupportedTokens: z.array(z.string()).optional(),
  /** The LLM judge's stand-alone rewrite of a follow-up it graded (from the conversation's earlier turns). */
  standaloneQuery: z.string().optional(),
  /** Personal data the response disclosed, counted per entity type — never the values (`pii_free`). */
  piiTypes: z.record(z.string(), z.number().int().nonnegative()).optional(),
  /** Why the LLM judge found the response toxic (`non_toxic` = 0): the rubric's categories. */
  toxicity: z.array(z.string()).optional(),
  /** The query-relevant source sentences the answer covers least, least first (embedded judge, at most 3). */
  uncoveredSources: z.array(z.string()).optional(),
  /**
   * Configured evaluators' explanations, by metric name: an `llm` evaluator's label (categorical and
   * boolean outputs) and one-sentence reason; a `check`'s failed rules.
   */
  evaluators: z
    .record(
      metricNameSchema,
      z.object({ label: z.string().max(64).optional(), reason: z.string().max(1000).optional(), failed: z.array(z.string().max(300)).max(32).optional() }),
    )
    .optional(),
});
export type ScoreDetails = z.infer<typeof detailsSchema>;

/** The result of judging one sampled triplet. */
export const scoreRecordSchema = z.object({
  tripletId: z.string(),
  traceId: z.string(),
  service: z.string(),
  route: z.string().optional(),
  /** The triplet's release (`service.version`), when known. */
  release: z.string().optional(),
  /** The triplet's generation model, when known (slices, docs/alerts.md). */
  model: z.string().optional(),
  stratum: z.string(),
  weight: z.number().positive().finite(),
  timestamp: z.string(),
  judge: z.object({ kind: judgeKindSchema, model: z.string().optional() }),
  /** Scores by metric name (built-ins and configured evaluators); absent = not applicable, never NaN. */
  scores: z.record(metricNameSchema, scoreValue),
  /** Why a metric has no score (e.g. `no_claims`), by metric name. */
  skipped: z.record(metricNameSchema, z.string()),
  details: detailsSchema,
  diagnosis: z.array(z.string()),
  usage: usageSchema,
  /** `probe` for a probe's triplet: kept out of production series, windows, alerts and examples. */
  origin: z.literal('probe').optional(),
  /** The triplet's conversation (schema 2): id, turn and the earlier turns the answer was judged with. */
  conversation: conversationSchema.optional(),
});
export type ScoreRecord = z.infer<typeof scoreRecordSchema>;

/**
 * The question the query-dependent metrics and the weakness map's topics grade. A follow-up the app
 * did not condense ("And when was it completed?") has its subject in the turn before: without a
 * standalone question from the app, it is the previous user message followed by the typed one (measured in
 * docs/judges.md: `node scripts/conversation-auc.ts`). A condensed query (`typedQuery` set) or a first
 * turn is graded as it is.
 */
export function queryInContext(triplet: Pick<Triplet, 'query' | 'conversation'>): string {
  const c = triplet.conversation;
  if (!c || c.typedQuery !== undefined) return triplet.query;
  for (let i = c.history.length - 1; i >= 0; i--) if (c.history[i]!.role === 'user') return `${c.history[i]!.content}\n${triplet.query}`;
  return triplet.query;
}

/** Probe trace ids start with this marker ("ragwatch probe" folded into 8 bytes; see `probes/trace-id.ts`). */
export const PROBE_TRACE_MARKER = '7261677770726f62';

/** True for a trace id made by the prober (the marker, then 8 random bytes): a ground-truth probe, not production traffic. */
export function isProbeTraceId(traceId: string): boolean {
  return traceId.length === 32 && traceId.startsWith(PROBE_TRACE_MARKER);
}

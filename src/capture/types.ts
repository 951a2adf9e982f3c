/**
 * Capture stage contracts: the span model every source (in-process SDK spans, OTLP JSON,
 * OTLP protobuf) is normalised into, and the convention-mapper plug point.
 * @module
 */
import type { Convention, Source, Triplet } from '../triplet.ts';

/** An attribute value after decoding (OTLP AnyValue, or an SDK attribute). */
export type AttrValue = string | number | boolean | null | AttrValue[] | { [key: string]: AttrValue };
export type Attributes = Record<string, AttrValue | undefined>;

/** A span event (e.g. first-chunk markers, content events). */
export interface CapturedEvent {
  name: string;
  /** Epoch milliseconds. */
  timeMs: number;
  attributes: Attributes;
}

/** A finished span in ragwatch's own, source-independent shape. */
export interface CapturedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTel API SpanKind (INTERNAL=0 … CONSUMER=4). */
  kind: number;
  /** Epoch milliseconds. */
  startMs: number;
  /** Epoch milliseconds. */
  endMs: number;
  attributes: Attributes;
  events: CapturedEvent[];
  /** Events the SDK evicted; a first-chunk event may be among them. */
  droppedEventsCount: number;
  resource: Attributes;
  scope: string;
  /** Span links (a request split over several traces can be joined through them). */
  links?: Array<{ traceId: string; spanId: string }>;
}

/** Where spans come from: OTLP ingest, the in-process processor, or the spans topic (split assembly). */
export type SpanSource = 'otlp' | 'processor' | 'kafka';

/** A log record (OTel GenAI content arrives as logs), joined to its span by ids. */
export interface CapturedLog {
  traceId?: string;
  spanId?: string;
  eventName?: string;
  timeMs: number;
  body: AttrValue | undefined;
  attributes: Attributes;
}

/** What a convention mapper reads off a generation (LLM) span. */
export interface GenerationFields {
  /** The user's question (last user message), when the span records it. */
  query?: string;
  response?: string;
  model?: string;
  /** Sources the generation itself carries (e.g. parsed from the prompt by the custom mapper). */
  sources?: Source[];
  inputTokens?: number;
  outputTokens?: number;
  /** The input messages as text (role + content), for prompt-embedded sources and the last user message. */
  inputMessages?: Array<{ role: string; content: string }>;
  /** A messages attribute was present but unreadable (malformed): why, for `--explain`; it is ignored. */
  inputMessagesIgnored?: string;
  /** When the first output token arrived, epoch milliseconds, where the convention records it in content (TTFT). */
  firstTokenAtMs?: number;
}

/** What a convention mapper reads off a retrieval (retriever/reranker/tool) span. */
export interface RetrievalFields {
  query?: string;
  sources?: Source[];
}

/** Role of a span in a RAG request. */
export type SpanRole = 'generation' | 'retrieval';

/**
 * One instrumentation convention (OpenInference, OTel GenAI, …). Pure functions of a span:
 * no I/O, no state, never throw on odd attribute values.
 */
export interface ConventionMapper {
  readonly name: Convention;
  /** The span's role under this convention, or `undefined` when the convention does not apply. */
  role(span: CapturedSpan): SpanRole | undefined;
  /** @param logs log records joined to this span by trace/span id (OTel GenAI content events). */
  generation(span: CapturedSpan, logs: readonly CapturedLog[]): GenerationFields;
  retrieval(span: CapturedSpan, logs: readonly CapturedLog[]): RetrievalFields;
}

/** Fields a generation could not be given; the reason a triplet was not emitted. */
export type MissingField = 'query' | 'sources' | 'response';

/** Outcome of mapping one generation span. */
export type GenerationOutcome =
  | { kind: 'triplet'; triplet: Triplet; mapper: Convention; explain?: OutcomeExplanation }
  | { kind: 'incomplete'; spanId: string; traceId: string; mapper: Convention; missing: MissingField[]; explain?: OutcomeExplanation };

/** Where each field of an outcome came from (`ragwatch extract --explain`). */
export interface OutcomeExplanation {
  spanName: string;
  /** e.g. `retrieval span 1a2b… (openinference)`, `prompt pattern`, `generation span`. */
  querySource?: string;
  sourcesSource?: string;
  /** Why no source was found where one was looked for (e.g. `context pattern matched, no documents in it`). */
  sourcesNote?: string;
  responseSource?: string;
  /** Where the conversation id came from, `anonymous …` without one; absent for a first turn without an id. */
  conversationSource?: string;
  /** The earlier turns kept and cut, and whether the query is the app's standalone question. */
  historyNote?: string;
}

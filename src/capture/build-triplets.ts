/**
 * Turns the spans (and GenAI content log records) of one assembled request into one outcome per
 * generation span: a Triplet, or an `incomplete` record naming what could not be found. Never
 * guesses a missing field.
 * @module
 */
import { hash } from 'node:crypto';
import { lastOfRole, str } from './attributes.ts';
import { latencyOf } from './latency.ts';
import { MAX_DATE_MS } from './otlp/any-value.ts';
import type { PromptSources } from './mappers/custom.ts';
import { isProbeTraceId } from '../triplet.ts';
import { declaredNonGeneration, nonGenerationOperation, type NonGenerationOperation } from './operation.ts';
import { textFromValue } from './mappers/openinference.ts';
import type { CapturedLog, CapturedSpan, ConventionMapper, GenerationFields, GenerationOutcome, MissingField, OutcomeExplanation, RetrievalFields, SpanRole } from './types.ts';
import type { Conversation, Source, Triplet } from '../triplet.ts';
import { conversationIdOf, conversationOf, isCondensed } from './conversation.ts';
import { tripletAttributes } from './triplet-attributes.ts';

/** Options of {@link buildTriplets}. */
export interface BuildOptions {
  mappers: readonly ConventionMapper[];
  /** Service name when the resource has none. */
  defaultService: string;
  /** Longest text kept per field, characters. */
  maxTextChars: number;
  /** Reads sources out of a generation's prompt when no retrieval span has them (`capture.custom.prompt*`). */
  promptSources?: (messages: ReadonlyArray<{ role: string; content: string }>) => PromptSources | undefined;
  /** Told of every model call that is not a generation (embedding, rerank, moderation, tool…): never a triplet. */
  onIgnored?: (span: CapturedSpan, operation: NonGenerationOperation) => void;
  /** `capture.conversation`: id attributes read first, and the history bounds. Default: the conventions' attributes, 20 messages of 2000 characters. */
  conversation?: { attributes: readonly string[]; maxTurns: number; maxChars: number };
  /** Attributes copied onto each triplet for sampling (`config/sampling-attributes.ts`). Default none. */
  attributeKeys?: readonly string[];
}

const DEFAULT_CONVERSATION = { attributes: [], maxTurns: 20, maxChars: 2_000 };

/** The triplet's conversation and its explanation, or undefined for a first turn without an id. */
function conversationFor(span: CapturedSpan, spans: readonly CapturedSpan[], byId: ReadonlyMap<string, CapturedSpan>, gen: GenerationFields, query: string, options: BuildOptions, explain: OutcomeExplanation): Conversation | undefined {
  const settings = options.conversation ?? DEFAULT_CONVERSATION;
  const found = conversationOf(gen.inputMessages, conversationIdOf(span, spans, byId, settings.attributes), settings);
  if (!found) return undefined;
  const c: Conversation = { turn: found.turn, history: found.history.map((t) => ({ role: t.role, content: clip(t.content, options.maxTextChars) })) };
  if (found.id !== undefined) c.id = found.id;
  if (found.cut.turns > 0 || found.cut.chars > 0) c.cut = found.cut;
  const condensed = found.typed !== undefined && isCondensed(found.typed, query);
  if (condensed) c.typedQuery = clip(found.typed!, options.maxTextChars);
  explain.conversationSource = found.idSource ?? 'anonymous (no conversation id exported; history from the input messages)';
  explain.historyNote = `history: turn ${c.turn}, ${c.history.length} earlier messages kept${c.cut ? `, ${c.cut.turns} messages and ${c.cut.chars} characters cut` : ''}; query ${condensed ? "is the app's standalone question (the typed one differs)" : 'as typed'}`;
  return c;
}

/** Stable triplet id: hash of trace id + generation span id. */
export function tripletId(traceId: string, spanId: string): string {
  return hash('sha256', `${traceId}:${spanId}`, 'hex').slice(0, 32);
}

interface Classified {
  span: CapturedSpan;
  mapper: ConventionMapper;
  role: SpanRole;
}

interface Retrieval {
  span: CapturedSpan;
  mapper: ConventionMapper;
  fields: RetrievalFields;
}

/** A span's role, or the non-generation operation it is (an embedding call a mapper took for a generation). */
function classify(span: CapturedSpan, mappers: readonly ConventionMapper[]): Classified | NonGenerationOperation | undefined {
  for (const mapper of mappers) {
    const role = mapper.role(span);
    if (role === 'generation') return nonGenerationOperation(span) ?? { span, mapper, role };
    if (role) return { span, mapper, role };
  }
  return declaredNonGeneration(span);
}

const DAY_MS = 86_400_000;
/** First instant of year 10000: past it `toISOString` switches to six-digit years. */
const ISO_FAST_END_MS = 253_402_300_800_000;
let isoDay = Number.NaN;
let isoDayPrefix = '';

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/**
 * `new Date(ms).toISOString()`, without a Date per call: the `YYYY-MM-DDT` prefix is formatted by
 * Date once per day, the time of day by hand (a Date per triplet was ~40 % of buildTriplets).
 * Never throws: a time outside a Date's range (or NaN) is clamped to the nearest end (NaN: 0).
 */
export function isoTimestamp(ms: number): string {
  // Date truncates fractional milliseconds toward zero.
  const t = Math.trunc(ms);
  if (!(t >= 0 && t < ISO_FAST_END_MS)) return new Date(Number.isNaN(t) ? 0 : Math.max(-MAX_DATE_MS, Math.min(MAX_DATE_MS, t))).toISOString();
  const day = Math.floor(t / DAY_MS);
  if (day !== isoDay) {
    isoDayPrefix = new Date(day * DAY_MS).toISOString().slice(0, 11);
    isoDay = day;
  }
  let rest = t - day * DAY_MS;
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  const sec = Math.floor(rest / 1000);
  const milli = rest - sec * 1000;
  return `${isoDayPrefix}${pad2(h)}:${pad2(m)}:${pad2(sec)}.${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}

function clip(text: string, max: number): string {
  return text.length > max ? text.slice(0, max) : text;
}

/** Slack when comparing a retrieval's end with a generation's start, milliseconds. */
const CLOCK_SLACK_MS = 1;

/** True when `span` is `ancestor` or below it. */
function isWithin(span: CapturedSpan, ancestor: CapturedSpan, byId: ReadonlyMap<string, CapturedSpan>): boolean {
  for (let s: CapturedSpan | undefined = span, hops = 0; s && hops < 64; s = s.parentSpanId ? byId.get(s.parentSpanId) : undefined, hops++) {
    if (s.spanId === ancestor.spanId) return true;
  }
  return false;
}

/**
 * The later-ending of two retrievals; the earlier one in span order on a tie. Of two nested
 * retrievals (LlamaIndex's query-engine `retrieve` around the retriever's) the outer one wins
 * whatever the clocks say: its output — after node postprocessors — is what its caller used, and
 * both end within the same millisecond, where the SDK's millisecond start clock cannot order them.
 */
function later(best: Retrieval | undefined, r: Retrieval, byId: ReadonlyMap<string, CapturedSpan>): Retrieval {
  if (best === undefined) return r;
  if (isWithin(best.span, r.span, byId)) return r;
  if (isWithin(r.span, best.span, byId)) return best;
  return r.span.endMs > best.span.endMs ? r : best;
}

/**
 * The retrieval that feeds a generation: the latest one (preferring the generation's own trace)
 * that ended before the generation started; else one that at least started before it ended
 * (streamed retrieval). A retrieval that started after the generation ended never feeds it.
 */
function pickRetrieval(gen: CapturedSpan, retrievals: readonly Retrieval[], byId: ReadonlyMap<string, CapturedSpan>): Retrieval | undefined {
  // One pass keeps the latest candidate of each pool: same trace or any, ended before or not.
  let sameBefore: Retrieval | undefined;
  let same: Retrieval | undefined;
  let anyBefore: Retrieval | undefined;
  let any: Retrieval | undefined;
  for (const r of retrievals) {
    if (!r.fields.sources || r.fields.sources.length === 0) continue;
    // A retrieval that started after the generation ended cannot have fed it — unless it runs inside
    // the generation span: the JS SDK stamps start times with a millisecond clock and end times with
    // a finer one, so a child started in its parent's last millisecond can appear to start after it.
    if (r.span.startMs > gen.endMs && !isWithin(r.span, gen, byId)) continue;
    const before = r.span.endMs <= gen.startMs + CLOCK_SLACK_MS;
    if (r.span.traceId === gen.traceId) {
      same = later(same, r, byId);
      if (before) sameBefore = later(sameBefore, r, byId);
    }
    any = later(any, r, byId);
    if (before) anyBefore = later(anyBefore, r, byId);
  }
  return same !== undefined ? (sameBefore ?? same) : (anyBefore ?? any);
}

function rootQuery(spans: readonly CapturedSpan[], traceId: string, byId: ReadonlyMap<string, CapturedSpan>): string | undefined {
  const root = spans.find((s) => s.traceId === traceId && (!s.parentSpanId || !byId.has(s.parentSpanId)));
  if (!root) return undefined;
  const fromInput = textFromValue(str(root.attributes, 'input.value'));
  if (fromInput !== undefined) return fromInput;
  const lf = str(root.attributes, 'langfuse.observation.input');
  return lf !== undefined ? textFromValue(lf) : undefined;
}

function routeOf(spans: readonly CapturedSpan[]): string | undefined {
  for (const s of spans) {
    const r = str(s.attributes, 'rag.route') ?? str(s.attributes, 'http.route');
    if (r) return r;
  }
  return undefined;
}

const short = (id: string) => id.slice(0, 8);
const NO_LOGS: readonly CapturedLog[] = Object.freeze([]);

/** Span ids of every ancestor of `span` (up to 64 hops). */
function addAncestors(span: CapturedSpan, byId: ReadonlyMap<string, CapturedSpan>, into: Set<string>): void {
  let parent = span.parentSpanId ? byId.get(span.parentSpanId) : undefined;
  for (let depth = 0; parent && depth < 64; depth++) {
    into.add(parent.spanId);
    parent = parent.parentSpanId ? byId.get(parent.parentSpanId) : undefined;
  }
}

/** True when `b` is the inner of two overlapping calls: it started later (or ended sooner, or is later in id order). */
function isInner(b: CapturedSpan, a: CapturedSpan): boolean {
  if (b.startMs !== a.startMs) return b.startMs > a.startMs;
  if (b.endMs !== a.endMs) return b.endMs < a.endMs;
  return b.spanId > a.spanId;
}

/**
 * Generations that are not reported, because another span of the same trace reports the same model
 * call: several instrumentations see one call (a framework's LLM span around the client span it
 * makes, beside it when a streamed call runs outside the framework span's context, or before it when
 * the framework span ends as soon as it hands out the stream). Two generations of one trace with the
 * same answer are one call when their spans nest or overlap in time, or when they answer the same
 * question (the same last user message). Of one call only the innermost span is reported (else the
 * one that started last): it is the call itself, with the messages really sent (the earlier turns),
 * its token counts and its first-chunk time; the others are wrappers. A generation without an answer
 * around one with an answer (LlamaIndex's `OpenAI.stream` around `OpenAI.stream_chat`) is a wrapper
 * too, not an incomplete answer.
 */
function wrappers(generations: readonly Classified[], fields: ReadonlyMap<string, GenerationFields>, byId: ReadonlyMap<string, CapturedSpan>): Set<string> {
  const skipped = new Set<string>();
  const answered = generations.filter((g) => fields.get(g.span.spanId)!.response !== undefined);
  if (generations.length < 2 || answered.length === 0) return skipped;
  const aroundAnswers = new Set<string>();
  for (const g of answered) addAncestors(g.span, byId, aroundAnswers);
  const byAnswer = new Map<string, CapturedSpan[]>();
  for (const g of generations) {
    const response = fields.get(g.span.spanId)!.response;
    if (response === undefined) {
      if (aroundAnswers.has(g.span.spanId)) skipped.add(g.span.spanId);
      continue;
    }
    const key = `${g.span.traceId}\n${response}`;
    const same = byAnswer.get(key);
    if (same) same.push(g.span);
    else byAnswer.set(key, [g.span]);
  }
  const question = (span: CapturedSpan) => {
    const f = fields.get(span.spanId)!;
    return f.inputMessages ? lastOfRole(f.inputMessages, 'user') : f.query;
  };
  for (const same of byAnswer.values()) {
    if (same.length < 2) continue;
    for (const a of same) {
      const ancestors = new Set<string>();
      addAncestors(a, byId, ancestors);
      for (const b of same) {
        if (a === b || ancestors.has(b.spanId)) continue;
        if (isWithin(b, a, byId)) {
          skipped.add(a.spanId);
          break;
        }
        const overlap = b.startMs <= a.endMs && a.startMs <= b.endMs;
        const asked = question(a);
        if ((overlap || (asked !== undefined && asked === question(b))) && !isWithin(a, b, byId) && isInner(b, a)) {
          skipped.add(a.spanId);
          break;
        }
      }
    }
  }
  return skipped;
}

/**
 * Builds one outcome per generation span of an assembled request (spans may be in any order, from
 * several traces), except generations listed in `contextOnly` (already reported).
 */
export function buildTriplets(spans: readonly CapturedSpan[], options: BuildOptions, logs: readonly CapturedLog[] = [], contextOnly: ReadonlySet<string> = new Set()): GenerationOutcome[] {
  let logsBySpan: Map<string, CapturedLog[]> | undefined;
  for (const l of logs) {
    if (!l.spanId) continue;
    logsBySpan ??= new Map();
    const list = logsBySpan.get(l.spanId);
    if (list) list.push(l);
    else logsBySpan.set(l.spanId, [l]);
  }
  const generations: Classified[] = [];
  const retrieving: Classified[] = [];
  for (const s of spans) {
    const c = classify(s, options.mappers);
    if (c === undefined) continue;
    if (typeof c === 'string') {
      if (!contextOnly.has(s.spanId)) options.onIgnored?.(s, c);
      continue;
    }
    if (c.role === 'retrieval') retrieving.push(c);
    // Generations assembled before (late-span reassembly) are context only: no second outcome.
    else if (!contextOnly.has(s.spanId)) generations.push(c);
  }
  if (generations.length === 0) return [];
  const retrievals: Retrieval[] = [];
  for (const c of retrieving) retrievals.push({ span: c.span, mapper: c.mapper, fields: c.mapper.retrieval(c.span, logsBySpan?.get(c.span.spanId) ?? NO_LOGS) });
  const genFields = new Map<string, GenerationFields>();
  for (const g of generations) genFields.set(g.span.spanId, g.mapper.generation(g.span, logsBySpan?.get(g.span.spanId) ?? NO_LOGS));
  const byId = new Map<string, CapturedSpan>();
  for (const s of spans) byId.set(s.spanId, s);
  const route = routeOf(spans);
  const max = options.maxTextChars;
  const skipped = wrappers(generations, genFields, byId);

  const outcomes: GenerationOutcome[] = [];
  for (const { span, mapper } of generations) {
    const gen = genFields.get(span.spanId)!;
    if (skipped.has(span.spanId)) continue;
    const explain: OutcomeExplanation = { spanName: span.name };
    let sources: Source[] | undefined;
    let query: string | undefined;
    if (gen.sources && gen.sources.length > 0) {
      sources = gen.sources;
      explain.sourcesSource = `generation span attributes (${mapper.name})`;
    }
    const retrieval = sources ? undefined : pickRetrieval(span, retrievals, byId);
    if (retrieval) {
      sources = retrieval.fields.sources;
      explain.sourcesSource = `retrieval span ${short(retrieval.span.spanId)} "${retrieval.span.name}" (${retrieval.mapper.name})`;
      if (retrieval.fields.query !== undefined) {
        query = retrieval.fields.query;
        explain.querySource = `retrieval span ${short(retrieval.span.spanId)}`;
      }
    }
    let fromPrompt: PromptSources | undefined;
    if (!sources && gen.inputMessages && options.promptSources) {
      const found = options.promptSources(gen.inputMessages);
      if (found && found.sources.length > 0) {
        fromPrompt = found;
        sources = found.sources;
        explain.sourcesSource = `prompt pattern (capture.custom.promptContextPattern)${found.note !== undefined ? `: ${found.note}` : ''}`;
      } else if (found?.note !== undefined) explain.sourcesNote = found.note;
    }
    if (query === undefined && fromPrompt?.query !== undefined) {
      query = fromPrompt.query;
      explain.querySource = 'prompt pattern';
    }
    if (query === undefined) {
      query = rootQuery(spans, span.traceId, byId);
      if (query !== undefined) explain.querySource = 'root span input';
    }
    if (query === undefined && !fromPrompt) {
      query = gen.query ?? (gen.inputMessages ? lastOfRole(gen.inputMessages, 'user') : undefined);
      if (query !== undefined) explain.querySource = `generation span input (${mapper.name})`;
    }
    if (gen.response !== undefined) explain.responseSource = `generation span (${mapper.name})`;

    const missing: MissingField[] = [];
    if (query === undefined || query.trim() === '') missing.push('query');
    if (!sources || sources.length === 0) missing.push('sources');
    if (gen.response === undefined) missing.push('response');
    if (missing.length > 0) {
      outcomes.push({ kind: 'incomplete', traceId: span.traceId, spanId: span.spanId, mapper: mapper.name, missing, explain });
      continue;
    }

    const triplet: Triplet = {
      id: tripletId(span.traceId, span.spanId),
      traceId: span.traceId,
      spanId: span.spanId,
      service: str(span.resource, 'service.name') ?? options.defaultService,
      timestamp: isoTimestamp(span.endMs),
      query: clip(query!, max),
      // Copied only when clipped: capture redacts every triplet into new objects before any sink sees it.
      sources: sources!.map((s) => (s.content.length > max ? { ...s, content: clip(s.content, max) } : s)),
      response: clip(gen.response!, max),
      latency: latencyOf(span, gen.inputTokens, gen.outputTokens, gen.firstTokenAtMs),
      convention: mapper.name,
    };
    if (route !== undefined) triplet.route = route;
    if (gen.model !== undefined) triplet.model = gen.model;
    const release = str(span.resource, 'service.version');
    if (release !== undefined) triplet.release = release;
    const responseId = str(span.attributes, 'gen_ai.response.id') ?? str(span.attributes, 'ai.response.id');
    if (responseId !== undefined && responseId !== '' && responseId.length <= 256) triplet.responseId = responseId;
    if (isProbeTraceId(span.traceId)) triplet.origin = 'probe';
    const attributes = options.attributeKeys ? tripletAttributes(span, options.attributeKeys, byId, (traceId) => spans.find((s) => s.traceId === traceId && !s.parentSpanId)) : undefined;
    if (attributes) triplet.attributes = attributes;
    const conversation = conversationFor(span, spans, byId, gen, query!, options, explain);
    if (conversation) triplet.conversation = conversation;
    if (gen.inputMessagesIgnored !== undefined) explain.historyNote = `${explain.historyNote ? `${explain.historyNote}; ` : ''}input messages ignored: ${gen.inputMessagesIgnored}`;
    outcomes.push({ kind: 'triplet', triplet, mapper: mapper.name, explain });
  }
  return outcomes;
}

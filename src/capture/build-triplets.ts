/**
 * Turns the spans of one trace into one outcome per generation span: a Triplet, or an
 * `incomplete` record naming what could not be found. Never guesses a missing field.
 * @module
 */
import { createHash } from 'node:crypto';
import { str } from './attributes.ts';
import { latencyOf } from './latency.ts';
import { textFromValue } from './mappers/openinference.ts';
import type { CapturedLog, CapturedSpan, ConventionMapper, GenerationOutcome, MissingField, RetrievalFields, SpanRole } from './types.ts';
import type { Source, Triplet } from '../triplet.ts';

/** Options of {@link buildTriplets}. */
export interface BuildOptions {
  mappers: readonly ConventionMapper[];
  /** Service name when the resource has none. */
  defaultService: string;
  /** Longest text kept per field, characters. */
  maxTextChars: number;
}

/** Stable triplet id: hash of trace id + generation span id. */
export function tripletId(traceId: string, spanId: string): string {
  return createHash('sha256').update(`${traceId}:${spanId}`).digest('hex').slice(0, 32);
}

interface Classified {
  span: CapturedSpan;
  mapper: ConventionMapper;
  role: SpanRole;
}

function classify(span: CapturedSpan, mappers: readonly ConventionMapper[]): Classified | undefined {
  for (const mapper of mappers) {
    const role = mapper.role(span);
    if (role) return { span, mapper, role };
  }
  return undefined;
}

function clip(text: string, max: number): string {
  return text.length > max ? text.slice(0, max) : text;
}

/** The retrieval that feeds a generation: the latest one that ended before it started, else the latest overall. */
function pickRetrievals(gen: CapturedSpan, retrievals: Array<{ span: CapturedSpan; fields: RetrievalFields }>) {
  const withSources = retrievals.filter((r) => r.fields.sources && r.fields.sources.length > 0);
  if (withSources.length === 0) return undefined;
  const before = withSources.filter((r) => r.span.endMs <= gen.startMs + 1);
  const pool = before.length > 0 ? before : withSources;
  return pool.reduce((best, r) => (r.span.endMs > best.span.endMs ? r : best));
}

function rootQuery(spans: readonly CapturedSpan[]): string | undefined {
  const ids = new Set(spans.map((s) => s.spanId));
  const root = spans.find((s) => !s.parentSpanId || !ids.has(s.parentSpanId));
  return root ? textFromValue(str(root.attributes, 'input.value')) : undefined;
}

function routeOf(spans: readonly CapturedSpan[]): string | undefined {
  for (const s of spans) {
    const r = str(s.attributes, 'rag.route') ?? str(s.attributes, 'http.route');
    if (r) return r;
  }
  return undefined;
}

/** Builds one outcome per generation span of a trace (spans may be in any order). */
export function buildTriplets(spans: readonly CapturedSpan[], options: BuildOptions, logs: readonly CapturedLog[] = []): GenerationOutcome[] {
  const logsOf = (spanId: string) => (logs.length === 0 ? logs : logs.filter((l) => l.spanId === spanId));
  const classified = spans.map((s) => classify(s, options.mappers)).filter((c): c is Classified => c !== undefined);
  const generations = classified.filter((c) => c.role === 'generation');
  if (generations.length === 0) return [];
  const retrievals = classified
    .filter((c) => c.role === 'retrieval')
    .map((c) => ({ span: c.span, fields: c.mapper.retrieval(c.span, logsOf(c.span.spanId)) }));
  const route = routeOf(spans);
  const max = options.maxTextChars;

  return generations.map(({ span, mapper }): GenerationOutcome => {
    const gen = mapper.generation(span, logsOf(span.spanId));
    const retrieval = pickRetrievals(span, retrievals);
    const sources: Source[] | undefined = gen.sources ?? retrieval?.fields.sources;
    const query = retrieval?.fields.query ?? rootQuery(spans) ?? gen.query;
    const missing: MissingField[] = [];
    if (query === undefined || query.trim() === '') missing.push('query');
    if (!sources || sources.length === 0) missing.push('sources');
    if (gen.response === undefined) missing.push('response');
    if (missing.length > 0) return { kind: 'incomplete', traceId: span.traceId, spanId: span.spanId, mapper: mapper.name, missing };

    const service = str(span.resource, 'service.name') ?? options.defaultService;
    const triplet: Triplet = {
      id: tripletId(span.traceId, span.spanId),
      traceId: span.traceId,
      spanId: span.spanId,
      service,
      timestamp: new Date(span.endMs).toISOString(),
      query: clip(query!, max),
      sources: sources!.map((s) => ({ ...s, content: clip(s.content, max) })),
      response: clip(gen.response!, max),
      latency: latencyOf(span, gen.inputTokens, gen.outputTokens),
      convention: mapper.name,
    };
    if (route !== undefined) triplet.route = route;
    if (gen.model !== undefined) triplet.model = gen.model;
    return { kind: 'triplet', triplet, mapper: mapper.name };
  });
}

/**
 * Haystack's own OpenTelemetry tracer (built into haystack-ai 2.x; in Haystack 3 the
 * `opentelemetry-haystack` integration: an `OpenTelemetryConnector` in the pipeline). One
 * `haystack.pipeline.run` span per run and one `haystack.component.run` span per component, named by
 * `haystack.component.name` / `haystack.component.type`; with `HAYSTACK_CONTENT_TRACING_ENABLED=true`
 * each carries its inputs and outputs as JSON in `haystack.component.input` / `haystack.component.output`:
 *
 * - retrievers and rankers (`…Retriever`, `…Ranker`): input `{"query"}`, output `{"documents": [{id,
 *   content, score, meta}]}`;
 * - chat generators (`…ChatGenerator`): input `{"messages": [ChatMessage]}` (`{role, content: [{text}]}`;
 *   Python's repr instead of JSON when an input is not serialisable, e.g. a streaming callback), output
 *   `{"replies": [ChatMessage]}` whose `meta` holds `model`, `usage` and, streamed,
 *   `completion_start_time` (naive ISO time, read as UTC);
 * - text generators (`…Generator`): input `{"prompt"}`, output `{"replies": ["text"], "meta": [{model, usage}]}`.
 *
 * Other components (prompt builders, embedders, writers, joiners, tool invokers) have no role here.
 * @module
 */
import { asObject, chatTexts, contentText, documentsOf, jsonOf, lastOfRole, str, unreadableMessages } from '../attributes.ts';
import type { AttrValue, CapturedSpan, ConventionMapper, GenerationFields, RetrievalFields, SpanRole } from '../types.ts';

const TYPE = 'haystack.component.type';
const INPUT = 'haystack.component.input';
const OUTPUT = 'haystack.component.output';
const RETRIEVER = /(Retriever|Ranker)$/;
const GENERATOR = /Generator$/;

/** The first reply of a generator's output: a ChatMessage (chat generators) or a string (text generators), with its meta. */
function firstReply(output: AttrValue | undefined): { text?: string; meta?: Record<string, AttrValue> } {
  const out = asObject(jsonOf(output));
  const replies = out?.['replies'];
  const reply = Array.isArray(replies) ? replies[0] : undefined;
  if (typeof reply === 'string') {
    const metas = out?.['meta'];
    const meta = asObject(Array.isArray(metas) ? metas[0] : undefined);
    return { text: reply, ...(meta ? { meta } : {}) };
  }
  const message = asObject(reply);
  if (!message) return {};
  const text = contentText(message['content'] ?? message['_content']) ?? (typeof message['text'] === 'string' ? message['text'] : undefined);
  const meta = asObject(message['meta'] ?? message['_meta']);
  return { ...(text !== undefined ? { text } : {}), ...(meta ? { meta } : {}) };
}

/** Haystack's ChatMessage dicts (`{role, content}` since 2.9, `{_role, _content}` before) as `{role, content}`. */
function messagesOf(input: AttrValue | undefined): ReturnType<typeof chatTexts> {
  const messages = asObject(jsonOf(input))?.['messages'];
  if (!Array.isArray(messages)) return [];
  return chatTexts(messages.map((m) => {
    const o = asObject(m);
    return o && o['role'] === undefined && o['_role'] !== undefined ? { role: o['_role'], content: o['_content'] ?? null } : (m ?? null);
  }));
}

const usageOf = (meta: Record<string, AttrValue> | undefined, key: string): number | undefined => {
  const v = asObject(meta?.['usage'])?.[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
};

/**
 * When the first token arrived, epoch milliseconds, from a streamed reply's `completion_start_time`
 * (a naive ISO time: Haystack writes `datetime.now()`, read here as UTC, as on most servers).
 */
function completionStartMs(meta: Record<string, AttrValue> | undefined): number | undefined {
  const raw = meta?.['completion_start_time'];
  if (typeof raw !== 'string') return undefined;
  const zoned = /(Z|[+-]\d\d:?\d\d)$/.test(raw) ? raw : `${raw}Z`;
  const ms = Date.parse(zoned);
  return Number.isFinite(ms) ? ms : undefined;
}

export const haystackMapper: ConventionMapper = {
  name: 'haystack',

  role(span: CapturedSpan): SpanRole | undefined {
    const type = str(span.attributes, TYPE);
    if (type === undefined) return undefined;
    if (RETRIEVER.test(type)) return 'retrieval';
    if (GENERATOR.test(type)) return 'generation';
    return undefined;
  },

  generation(span: CapturedSpan): GenerationFields {
    const a = span.attributes;
    const fields: GenerationFields = {};
    const input = jsonOf(a[INPUT]);
    const prompt = asObject(input)?.['prompt'];
    const messages = typeof prompt === 'string' ? [{ role: 'user', content: prompt }] : messagesOf(a[INPUT]);
    if (messages.length > 0) fields.inputMessages = messages;
    else if (a[INPUT] !== undefined && typeof prompt !== 'string') {
      const why = typeof input === 'string' ? `${INPUT} is not JSON (a Python repr: an input was not serialisable)` : unreadableMessages(INPUT, a[INPUT]);
      if (why !== undefined) fields.inputMessagesIgnored = why;
    }
    const query = lastOfRole(messages, 'user');
    if (query !== undefined) fields.query = query;
    const reply = firstReply(a[OUTPUT]);
    if (reply.text !== undefined) fields.response = reply.text;
    const model = reply.meta?.['model'];
    if (typeof model === 'string') fields.model = model;
    const inTok = usageOf(reply.meta, 'prompt_tokens') ?? usageOf(reply.meta, 'input_tokens');
    if (inTok !== undefined) fields.inputTokens = inTok;
    const outTok = usageOf(reply.meta, 'completion_tokens') ?? usageOf(reply.meta, 'output_tokens');
    if (outTok !== undefined) fields.outputTokens = outTok;
    const first = completionStartMs(reply.meta);
    if (first !== undefined) fields.firstTokenAtMs = first;
    return fields;
  },

  retrieval(span: CapturedSpan): RetrievalFields {
    const a = span.attributes;
    const fields: RetrievalFields = {};
    const sources = documentsOf(a[OUTPUT]);
    if (sources.length > 0) fields.sources = sources;
    const query = asObject(jsonOf(a[INPUT]))?.['query'];
    if (typeof query === 'string' && query !== '') fields.query = query;
    return fields;
  },
};

/**
 * OpenTelemetry GenAI semantic conventions (`gen_ai.*`): inference spans (`chat`, `text_completion`,
 * `generate_content`), the `retrieval` operation, `execute_tool` results as sources, and every
 * content shape seen in the wild — `gen_ai.input/output.messages` (JSON string or structured),
 * the older indexed `gen_ai.prompt.N.*` / `gen_ai.completion.N.*` attributes, span events
 * (`gen_ai.content.prompt|completion`, `gen_ai.*.message`, `gen_ai.choice`) and log records
 * joined by span id (`@opentelemetry/instrumentation-openai` emits content only as logs).
 * @module
 */
import { unreadableMessages, asObject, chatTexts, contentText, documentOf, documentsOf, firstNum, firstStr, indexed, jsonOf, lastOfRole, str, type ChatText } from '../attributes.ts';
import type { AttrValue, CapturedLog, CapturedSpan, ConventionMapper, GenerationFields, RetrievalFields, SpanRole } from '../types.ts';
import type { Source } from '../../triplet.ts';

const OPERATION = 'gen_ai.operation.name';
const INFERENCE_OPS = new Set(['chat', 'text_completion', 'generate_content', 'completion']);
const MESSAGE_EVENTS: Record<string, string> = {
  'gen_ai.system.message': 'system',
  'gen_ai.user.message': 'user',
  'gen_ai.assistant.message': 'assistant',
  'gen_ai.tool.message': 'tool',
};
const DETAILS_EVENT = 'gen_ai.client.inference.operation.details';

/** A content event, from a log record (body) or a span event (attributes). */
interface ContentEvent {
  name: string;
  body: AttrValue | undefined;
  attributes: Record<string, AttrValue | undefined>;
}

function contentEvents(span: CapturedSpan, logs: readonly CapturedLog[]): ContentEvent[] {
  const out: ContentEvent[] = [];
  for (const e of span.events) out.push({ name: e.name, body: e.attributes as AttrValue, attributes: e.attributes });
  for (const l of logs) {
    const name = l.eventName ?? str(l.attributes, 'event.name');
    if (name) out.push({ name, body: jsonOf(l.body), attributes: l.attributes });
  }
  return out;
}

function indexedMessages(span: CapturedSpan, prefix: string): ChatText[] {
  return indexed(span.attributes, prefix).flatMap((m) => {
    const content = contentText(jsonOf(m['content']));
    const role = typeof m['role'] === 'string' ? m['role'] : prefix.endsWith('completion') ? 'assistant' : 'user';
    return content === undefined ? [] : [{ role, content }];
  });
}

/** Input messages of a GenAI inference span, from the first shape that has any. */
export function genAiInputMessages(span: CapturedSpan, logs: readonly CapturedLog[]): ChatText[] {
  const a = span.attributes;
  const system = chatTexts([{ role: 'system', parts: jsonOf(a['gen_ai.system_instructions']) ?? null }]);
  const fromAttr = chatTexts(a['gen_ai.input.messages']);
  if (fromAttr.length > 0) return [...system, ...fromAttr];
  const legacy = indexedMessages(span, 'gen_ai.prompt');
  if (legacy.length > 0) return legacy;
  const events = contentEvents(span, logs);
  for (const e of events) {
    if (e.name === DETAILS_EVENT) {
      const msgs = chatTexts(e.attributes['gen_ai.input.messages'] ?? asObject(e.body)?.['gen_ai.input.messages']);
      if (msgs.length > 0) return msgs;
    }
    if (e.name === 'gen_ai.content.prompt') {
      const msgs = chatTexts(e.attributes['gen_ai.prompt']);
      if (msgs.length > 0) return msgs;
    }
  }
  const fromEvents: ChatText[] = [];
  for (const e of events) {
    const role = MESSAGE_EVENTS[e.name];
    if (!role) continue;
    const content = contentText(jsonOf(asObject(e.body)?.['content']));
    if (content !== undefined) fromEvents.push({ role, content });
  }
  return fromEvents;
}

/** Response text (first choice) of a GenAI inference span, from the first shape that has it. */
export function genAiResponse(span: CapturedSpan, logs: readonly CapturedLog[]): string | undefined {
  const a = span.attributes;
  const out = lastOfRole(chatTexts(a['gen_ai.output.messages']), 'assistant') ?? chatTexts(a['gen_ai.output.messages'])[0]?.content;
  if (out !== undefined) return out;
  const legacy = indexedMessages(span, 'gen_ai.completion')[0]?.content;
  if (legacy !== undefined) return legacy;
  for (const e of contentEvents(span, logs)) {
    if (e.name === DETAILS_EVENT) {
      const msgs = chatTexts(e.attributes['gen_ai.output.messages'] ?? asObject(e.body)?.['gen_ai.output.messages']);
      if (msgs[0]) return msgs[0].content;
    }
    if (e.name === 'gen_ai.content.completion') {
      const v = jsonOf(e.attributes['gen_ai.completion']);
      const text = typeof v === 'string' ? v : chatTexts(v)[0]?.content;
      if (text !== undefined) return text;
    }
    if (e.name === 'gen_ai.choice') {
      const body = asObject(e.body);
      const index = body?.['index'];
      if (index !== undefined && index !== 0 && index !== '0') continue;
      const text = contentText(jsonOf(asObject(jsonOf(body?.['message']))?.['content']));
      if (text !== undefined) return text;
    }
  }
  return undefined;
}

/** Model and token counts shared by GenAI-style inference spans. */
export function genAiUsage(span: CapturedSpan): Pick<GenerationFields, 'model' | 'inputTokens' | 'outputTokens'> {
  const a = span.attributes;
  const fields: Pick<GenerationFields, 'model' | 'inputTokens' | 'outputTokens'> = {};
  const model = firstStr(a, ['gen_ai.response.model', 'gen_ai.request.model']);
  if (model !== undefined) fields.model = model;
  const inTok = firstNum(a, ['gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens']);
  if (inTok !== undefined) fields.inputTokens = inTok;
  const outTok = firstNum(a, ['gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens']);
  if (outTok !== undefined) fields.outputTokens = outTok;
  return fields;
}

/** Generation fields of a GenAI-style inference span. */
export function genAiGeneration(span: CapturedSpan, logs: readonly CapturedLog[]): GenerationFields {
  const fields: GenerationFields = genAiUsage(span);
  const messages = genAiInputMessages(span, logs);
  const unreadable = unreadableMessages('gen_ai.input.messages', span.attributes['gen_ai.input.messages']);
  if (unreadable !== undefined) fields.inputMessagesIgnored = unreadable;
  if (messages.length > 0) fields.inputMessages = messages;
  const query = lastOfRole(messages, 'user');
  if (query !== undefined) fields.query = query;
  const response = genAiResponse(span, logs);
  if (response !== undefined) fields.response = response;
  return fields;
}

/** The query a tool was called with (`query`, `question`, `q`, `input`, `search` argument). */
export function toolQuery(args: AttrValue | undefined): string | undefined {
  const parsed = jsonOf(args);
  if (typeof parsed === 'string') return parsed;
  const obj = asObject(parsed);
  for (const k of ['query', 'question', 'q', 'input', 'search', 'text']) {
    const v = obj?.[k];
    if (typeof v === 'string' && v !== '') return v;
  }
  return undefined;
}

/** Sources in a tool result: a document list, one document, or the result text itself. */
export function toolSources(result: AttrValue | undefined): Source[] {
  const docs = documentsOf(result);
  if (docs.length > 0) return docs;
  const parsed = jsonOf(result);
  const one = typeof parsed === 'object' ? documentOf(parsed) : undefined;
  if (one) return [one];
  if (typeof result === 'string' && result.trim() !== '') return [{ content: result }];
  if (result !== undefined && result !== null && typeof result === 'object') return [{ content: JSON.stringify(result) }];
  return [];
}

export const genAiMapper: ConventionMapper = {
  name: 'genai',

  role(span: CapturedSpan): SpanRole | undefined {
    const a = span.attributes;
    const op = str(a, OPERATION);
    if (op !== undefined) {
      if (INFERENCE_OPS.has(op)) return 'generation';
      if (op === 'retrieval') return 'retrieval';
      if (op === 'execute_tool') return a['gen_ai.tool.call.result'] !== undefined ? 'retrieval' : undefined;
      return undefined;
    }
    const requestType = str(a, 'llm.request.type');
    if (requestType === 'chat' || requestType === 'completion') return 'generation';
    if (str(a, 'gen_ai.completion.0.content') !== undefined || str(a, 'gen_ai.prompt.0.content') !== undefined) return 'generation';
    return undefined;
  },

  generation: genAiGeneration,

  retrieval(span: CapturedSpan): RetrievalFields {
    const a = span.attributes;
    const fields: RetrievalFields = {};
    if (str(a, OPERATION) === 'execute_tool') {
      const sources = toolSources(a['gen_ai.tool.call.result']);
      if (sources.length > 0) fields.sources = sources;
      const query = toolQuery(a['gen_ai.tool.call.arguments']);
      if (query !== undefined) fields.query = query;
      return fields;
    }
    const sources = documentsOf(a['gen_ai.retrieval.documents']);
    if (sources.length > 0) fields.sources = sources;
    const query = str(a, 'gen_ai.retrieval.query.text');
    if (query !== undefined && query !== '') fields.query = query;
    return fields;
  },
};

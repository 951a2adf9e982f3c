/**
 * Langfuse SDK (v4+/`@langfuse/tracing`, OTel-based) observations: `langfuse.observation.type`
 * (`generation` → generation; `retriever` → retrieval), `langfuse.observation.input/output`
 * (JSON or text), `langfuse.observation.model.name`, `langfuse.observation.usage_details`,
 * `langfuse.observation.completion_start_time` (TTFT, read by latency.ts).
 * @module
 */
import { asObject, chatTexts, contentText, documentsOf, jsonOf, lastOfRole, str } from '../attributes.ts';
import type { AttrValue, CapturedSpan, ConventionMapper, GenerationFields, RetrievalFields, SpanRole } from '../types.ts';
import { toolQuery } from './genai.ts';

const TYPE = 'langfuse.observation.type';
const INPUT = 'langfuse.observation.input';
const OUTPUT = 'langfuse.observation.output';

/** Output text: plain text, a message `{role, content}`, a choice list, or `{content|text|output}`. */
function outputText(value: AttrValue | undefined): string | undefined {
  const parsed = jsonOf(value);
  if (typeof parsed === 'string') return parsed;
  const messages = chatTexts(Array.isArray(parsed) ? parsed : [parsed ?? null]);
  const assistant = lastOfRole(messages, 'assistant');
  if (assistant !== undefined) return assistant;
  const obj = asObject(parsed);
  const choice = asObject(Array.isArray(obj?.['choices']) ? (obj['choices'] as AttrValue[])[0] : undefined);
  const fromChoice = contentText(asObject(choice?.['message'])?.['content']);
  if (fromChoice !== undefined) return fromChoice;
  for (const k of ['content', 'text', 'output', 'completion']) {
    const t = contentText(obj?.[k]);
    if (t !== undefined) return t;
  }
  return undefined;
}

function usage(value: AttrValue | undefined, keys: readonly string[]): number | undefined {
  const obj = asObject(jsonOf(value));
  for (const k of keys) {
    const v = obj?.[k];
    if (typeof v === 'number' && Number.isFinite(v)) return v;
  }
  return undefined;
}

export const langfuseMapper: ConventionMapper = {
  name: 'langfuse',

  role(span: CapturedSpan): SpanRole | undefined {
    const type = str(span.attributes, TYPE);
    if (type === 'generation') return 'generation';
    if (type === 'retriever') return 'retrieval';
    return undefined;
  },

  generation(span: CapturedSpan): GenerationFields {
    const a = span.attributes;
    const fields: GenerationFields = {};
    const input = jsonOf(a[INPUT]);
    const messages = typeof input === 'string' ? [{ role: 'user', content: input }] : chatTexts(input);
    if (messages.length > 0) fields.inputMessages = messages;
    const query = lastOfRole(messages, 'user');
    if (query !== undefined) fields.query = query;
    const response = outputText(a[OUTPUT]);
    if (response !== undefined) fields.response = response;
    const model = str(a, 'langfuse.observation.model.name');
    if (model !== undefined) fields.model = model;
    const inTok = usage(a['langfuse.observation.usage_details'], ['input', 'prompt_tokens', 'input_tokens']);
    if (inTok !== undefined) fields.inputTokens = inTok;
    const outTok = usage(a['langfuse.observation.usage_details'], ['output', 'completion_tokens', 'output_tokens']);
    if (outTok !== undefined) fields.outputTokens = outTok;
    return fields;
  },

  retrieval(span: CapturedSpan): RetrievalFields {
    const a = span.attributes;
    const fields: RetrievalFields = {};
    const sources = documentsOf(a[OUTPUT]);
    if (sources.length > 0) fields.sources = sources;
    const query = toolQuery(a[INPUT]);
    if (query !== undefined && query !== '') fields.query = query;
    return fields;
  },
};

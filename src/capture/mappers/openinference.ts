/**
 * OpenInference (Arize) convention: `openinference.span.kind`, `llm.*`,
 * `retrieval.documents.N.document.*`, `input.value` / `output.value`.
 * @module
 */
import { firstStr, flatMetadata, indexed, num, str, tryJson } from '../attributes.ts';
import type { AttrValue, CapturedSpan, ConventionMapper, GenerationFields, RetrievalFields, SpanRole } from '../types.ts';
import type { Source } from '../../triplet.ts';

const KIND = 'openinference.span.kind';

/** Text of an `input.value`: plain text, or the `query`/`input`/`question` field of JSON input. */
export function textFromValue(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const parsed = tryJson(value);
  if (parsed === undefined) return value;
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
    for (const k of ['query', 'input', 'question']) {
      const v = parsed[k];
      if (typeof v === 'string') return v;
    }
  }
  return undefined;
}

function messageText(msg: Record<string, AttrValue>): string | undefined {
  const content = msg['message.content'];
  if (typeof content === 'string') return content;
  // Multi-part content: message.contents.<j>.message_content.text
  const parts = Object.keys(msg)
    .filter((k) => k.startsWith('message.contents.') && k.endsWith('.message_content.text'))
    .sort((a, b) => Number(a.split('.')[2]) - Number(b.split('.')[2]))
    .map((k) => msg[k])
    .filter((v): v is string => typeof v === 'string');
  return parts.length > 0 ? parts.join('\n') : undefined;
}

function documents(span: CapturedSpan, prefix: string): Source[] {
  return indexed(span.attributes, prefix).flatMap((doc) => {
    const content = doc['document.content'];
    if (typeof content !== 'string') return [];
    const source: Source = { content };
    const metadata = flatMetadata(doc['document.metadata']);
    const id = doc['document.id'] ?? metadata?.id;
    if (id !== undefined && id !== null && typeof id !== 'object') source.id = String(id);
    const score = doc['document.score'] ?? metadata?.score;
    const scoreNum = typeof score === 'number' ? score : typeof score === 'string' ? Number(score) : NaN;
    if (Number.isFinite(scoreNum)) source.score = scoreNum;
    if (metadata) source.metadata = metadata;
    return [source];
  });
}

export const openInferenceMapper: ConventionMapper = {
  name: 'openinference',

  role(span: CapturedSpan): SpanRole | undefined {
    const kind = str(span.attributes, KIND);
    if (kind === 'LLM') return 'generation';
    if (kind === 'RETRIEVER' || kind === 'RERANKER') return 'retrieval';
    return undefined;
  },

  generation(span: CapturedSpan): GenerationFields {
    const a = span.attributes;
    const inputs = indexed(a, 'llm.input_messages');
    const lastUser = [...inputs].reverse().find((m) => m['message.role'] === 'user');
    const outputs = indexed(a, 'llm.output_messages');
    const firstOut = outputs[0];
    const prompts = indexed(a, 'llm.prompts');
    const choices = indexed(a, 'llm.choices');
    const fields: GenerationFields = {};
    const query =
      (lastUser && messageText(lastUser)) ??
      (typeof prompts[0]?.['prompt.text'] === 'string' ? prompts[0]['prompt.text'] : undefined);
    if (query !== undefined) fields.query = query;
    const response =
      (firstOut && messageText(firstOut)) ??
      (typeof choices[0]?.['completion.text'] === 'string' ? choices[0]['completion.text'] : undefined) ??
      (str(a, 'output.mime_type') !== 'application/json' ? str(a, 'output.value') : undefined);
    if (response !== undefined) fields.response = response;
    const model = firstStr(a, ['llm.response.model_name', 'llm.model_name', 'llm.request.model_name']);
    if (model !== undefined) fields.model = model;
    const inTok = num(a, 'llm.token_count.prompt');
    if (inTok !== undefined) fields.inputTokens = inTok;
    const outTok = num(a, 'llm.token_count.completion');
    if (outTok !== undefined) fields.outputTokens = outTok;
    return fields;
  },

  retrieval(span: CapturedSpan): RetrievalFields {
    const a = span.attributes;
    const reranked = documents(span, 'reranker.output_documents');
    const sources = reranked.length > 0 ? reranked : documents(span, 'retrieval.documents');
    const fields: RetrievalFields = {};
    if (sources.length > 0) fields.sources = sources;
    const query = str(a, 'reranker.query') ?? textFromValue(str(a, 'input.value'));
    if (query !== undefined && query !== '') fields.query = query;
    return fields;
  },
};

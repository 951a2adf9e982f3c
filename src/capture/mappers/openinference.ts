/**
 * OpenInference (Arize) convention: `openinference.span.kind`, `llm.*`,
 * `retrieval.documents.N.document.*`, `input.value` / `output.value`.
 * @module
 */
import { firstStr, flatMetadata, indexed, indexedMany, num, str, tryJson } from '../attributes.ts';
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

const DOCUMENT_LISTS = ['reranker.output_documents', 'retrieval.documents'];
const MESSAGE_LISTS = ['llm.input_messages', 'llm.output_messages'];

function documents(docs: readonly Record<string, AttrValue>[]): Source[] {
  const sources: Source[] = [];
  for (const doc of docs) {
    const content = doc['document.content'];
    if (typeof content !== 'string') continue;
    const source: Source = { content };
    const rawMetadata = doc['document.metadata'];
    const metadata = rawMetadata === undefined ? undefined : flatMetadata(rawMetadata);
    const id = doc['document.id'] ?? metadata?.id;
    if (id !== undefined && id !== null && typeof id !== 'object') source.id = String(id);
    const score = doc['document.score'] ?? metadata?.score;
    const scoreNum = typeof score === 'number' ? score : typeof score === 'string' ? Number(score) : NaN;
    if (Number.isFinite(scoreNum)) source.score = scoreNum;
    if (metadata) source.metadata = metadata;
    sources.push(source);
  }
  return sources;
}

const MODEL_KEYS = ['llm.response.model_name', 'llm.model_name', 'llm.request.model_name'];

/** The last message with role `user`. */
function lastUserMessage(messages: readonly Record<string, AttrValue>[]): Record<string, AttrValue> | undefined {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!['message.role'] === 'user') return messages[i];
  return undefined;
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
    const fields: GenerationFields = {};
    // Prompt and choice lists are the fallbacks: read only when the messages do not say.
    const [inputs, outputs] = indexedMany(a, MESSAGE_LISTS);
    const lastUser = lastUserMessage(inputs!);
    let query = lastUser ? messageText(lastUser) : undefined;
    if (query === undefined) {
      const text = indexed(a, 'llm.prompts')[0]?.['prompt.text'];
      if (typeof text === 'string') query = text;
    }
    if (query !== undefined) fields.query = query;
    // Every input message in order: the conversation's earlier turns come from these.
    const messages = inputs!.flatMap((m) => {
      const content = messageText(m);
      const role = m['message.role'];
      return content !== undefined && typeof role === 'string' ? [{ role, content }] : [];
    });
    if (messages.length > 0) fields.inputMessages = messages;
    const firstOut = outputs![0];
    let response = firstOut ? messageText(firstOut) : undefined;
    if (response === undefined) {
      const text = indexed(a, 'llm.choices')[0]?.['completion.text'];
      response = typeof text === 'string' ? text : str(a, 'output.mime_type') !== 'application/json' ? str(a, 'output.value') : undefined;
    }
    if (response !== undefined) fields.response = response;
    const model = firstStr(a, MODEL_KEYS);
    if (model !== undefined) fields.model = model;
    const inTok = num(a, 'llm.token_count.prompt');
    if (inTok !== undefined) fields.inputTokens = inTok;
    const outTok = num(a, 'llm.token_count.completion');
    if (outTok !== undefined) fields.outputTokens = outTok;
    return fields;
  },

  retrieval(span: CapturedSpan): RetrievalFields {
    const a = span.attributes;
    const [rerankedDocs, retrievedDocs] = indexedMany(a, DOCUMENT_LISTS);
    const reranked = documents(rerankedDocs!);
    const sources = reranked.length > 0 ? reranked : documents(retrievedDocs!);
    const fields: RetrievalFields = {};
    if (sources.length > 0) fields.sources = sources;
    const query = str(a, 'reranker.query') ?? textFromValue(str(a, 'input.value'));
    if (query !== undefined && query !== '') fields.query = query;
    return fields;
  },
};

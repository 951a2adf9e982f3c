/**
 * The `custom` convention: attribute names from configuration (`capture.custom.*Attributes`, e.g.
 * an app-set `rag.sources` JSON), and "sources from the prompt": many apps have no retriever
 * span and put numbered documents into the prompt, so a configured pattern cuts the context
 * block out of the prompt and splits it into documents.
 * @module
 */
import { documentsOf, firstStr, lastOfRole, type ChatText } from '../attributes.ts';
import type { CapturedSpan, ConventionMapper, GenerationFields, RetrievalFields, SpanRole } from '../types.ts';
import type { Source } from '../../triplet.ts';

/** Attribute names and prompt patterns of the custom convention (resolved config). */
export interface CustomConventionOptions {
  queryAttributes: readonly string[];
  responseAttributes: readonly string[];
  sourcesAttributes: readonly string[];
  /** Regex; its `context` group (else group 1) is the context block. Empty: prompt sources off. */
  promptContextPattern: string;
  /** Regex matching one document in the block: `content` group (else group 1), optional `id` group. */
  promptDocumentPattern: string;
  /** Regex; its `query` group (else group 1) is the question, when the block is in the user message. */
  promptQueryPattern: string;
}

/** Defaults of {@link CustomConventionOptions} (mirrors `src/config/sections/capture.ts`). */
export const CUSTOM_DEFAULTS: CustomConventionOptions = {
  queryAttributes: ['rag.query'],
  responseAttributes: ['rag.response'],
  sourcesAttributes: ['rag.sources'],
  promptContextPattern: '',
  promptDocumentPattern: String.raw`\[(?<id>[^\]\n]{1,40})\]\s*(?<content>[\s\S]*?)(?=\n\s*\[[^\]\n]{1,40}\]|$)`,
  promptQueryPattern: '',
};

function sourcesOf(span: CapturedSpan, keys: readonly string[]): Source[] {
  for (const k of keys) {
    const docs = documentsOf(span.attributes[k]);
    if (docs.length > 0) return docs;
  }
  return [];
}

/** Builds the custom mapper for the configured attribute names. */
export function createCustomMapper(options: CustomConventionOptions = CUSTOM_DEFAULTS): ConventionMapper {
  const has = (span: CapturedSpan, keys: readonly string[]) => keys.some((k) => span.attributes[k] !== undefined);
  return {
    name: 'custom',
    role(span: CapturedSpan): SpanRole | undefined {
      if (has(span, options.responseAttributes)) return 'generation';
      if (has(span, options.sourcesAttributes)) return 'retrieval';
      return undefined;
    },
    generation(span: CapturedSpan): GenerationFields {
      const fields: GenerationFields = {};
      const query = firstStr(span.attributes, options.queryAttributes);
      if (query !== undefined) fields.query = query;
      const response = firstStr(span.attributes, options.responseAttributes);
      if (response !== undefined) fields.response = response;
      const sources = sourcesOf(span, options.sourcesAttributes);
      if (sources.length > 0) fields.sources = sources;
      return fields;
    },
    retrieval(span: CapturedSpan): RetrievalFields {
      const fields: RetrievalFields = {};
      const query = firstStr(span.attributes, options.queryAttributes);
      if (query !== undefined) fields.query = query;
      const sources = sourcesOf(span, options.sourcesAttributes);
      if (sources.length > 0) fields.sources = sources;
      return fields;
    },
  };
}

/** The custom mapper with default attribute names (`rag.query`, `rag.response`, `rag.sources`). */
export const customMapper: ConventionMapper = createCustomMapper();

/** What the prompt pattern found: the documents and, when the block sat in the user message, the question. */
export interface PromptSources {
  /** Empty when the context pattern matched a block with nothing in it (see `note`). */
  sources: Source[];
  query?: string;
  /** How the block was read (`no document markers: …`) or why it gave nothing, for `--explain` and the trail. */
  note?: string;
}

/** The note of a context block that matched but holds no text: the trail and `--explain` say it in these words. */
export const EMPTY_CONTEXT_NOTE = 'context pattern matched, no documents in it';
/** The note of prompts the context pattern did not match. */
export const NO_CONTEXT_NOTE = 'context pattern (capture.custom.promptContextPattern) matched no system or user message';

/**
 * The documents of a context block without the document pattern's markers (`"\n".join(docs)`, as LangChain
 * apps build it): one source per paragraph when blank lines separate paragraphs, otherwise the whole block
 * as one source — a single newline is as likely inside a document as between two, so it is never a boundary.
 */
export function unmarkedDocuments(block: string): Source[] {
  const paragraphs = block
    .split(/\n[ \t]*\n/)
    .map((p) => p.trim())
    .filter((p) => p !== '');
  return paragraphs.map((content) => ({ content }));
}

function group(m: RegExpExecArray, name: string): string | undefined {
  return m.groups?.[name] ?? m[1];
}

/**
 * Compiles the prompt patterns once; the returned function reads sources out of a generation's
 * input messages (system and user messages, last first). Undefined when off; no sources (with a `note`) when the
 * pattern matched no message or an empty block.
 */
export function createPromptSourceExtractor(options: CustomConventionOptions): ((messages: readonly ChatText[]) => PromptSources | undefined) | undefined {
  if (options.promptContextPattern === '') return undefined;
  const context = new RegExp(options.promptContextPattern);
  const docPattern = options.promptDocumentPattern;
  const queryPattern = options.promptQueryPattern === '' ? undefined : new RegExp(options.promptQueryPattern);
  return (messages) => {
    for (let i = messages.length - 1; i >= 0; i--) {
      const msg = messages[i]!;
      if (msg.role !== 'user' && msg.role !== 'system') continue;
      const m = context.exec(msg.content);
      const block = m ? group(m, 'context') : undefined;
      if (!m || block === undefined) continue;
      let sources: Source[] = [];
      for (const d of block.matchAll(new RegExp(docPattern, 'g'))) {
        const content = (d.groups?.['content'] ?? d[1] ?? '').trim();
        if (content === '') continue;
        const id = d.groups?.['id']?.trim();
        sources.push(id ? { id, content } : { content });
      }
      let note: string | undefined;
      if (sources.length === 0) {
        sources = unmarkedDocuments(block);
        if (sources.length === 0) return { sources, note: EMPTY_CONTEXT_NOTE };
        note = sources.length === 1 ? 'no document markers: the whole context block is one source' : `no document markers: ${sources.length} paragraphs, one source each`;
      }
      const result: PromptSources = note !== undefined ? { sources, note } : { sources };
      if (msg.role === 'user') {
        const q = queryPattern?.exec(msg.content);
        const question = q ? group(q, 'query')?.trim() : undefined;
        // The user message holds the context: without a question pattern, the rest of it is the question.
        const rest = question ?? (msg.content.slice(0, m.index) + msg.content.slice(m.index + m[0].length)).trim();
        if (rest !== '') result.query = rest;
      } else {
        const user = lastOfRole(messages, 'user');
        if (user !== undefined) result.query = user;
      }
      return result;
    }
    return { sources: [], note: NO_CONTEXT_NOTE };
  };
}

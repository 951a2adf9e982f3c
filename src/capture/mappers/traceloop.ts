/**
 * OpenLLMetry / Traceloop convention: LLM spans from `@traceloop/instrumentation-*` (GenAI
 * `gen_ai.input/output.messages` since 0.23, indexed `gen_ai.prompt.N.*` before), retriever
 * tasks (`traceloop.span.kind=task` named `*retrieve*`, `vector_db_retrieve`) with
 * `traceloop.entity.input/output` JSON, and vector-DB client spans with `db.query.result` /
 * `db.search.result` events or Pinecone's `db.vector.query.result.N.*` attributes.
 *
 * LlamaIndex.TS (`@traceloop/instrumentation-llamaindex`): `{snake(class)}.retrieve` tasks whose
 * input is `{"args":["<query>"],"kwargs":{}}` (or `{"args":[],"kwargs":{"query":…}}`) and whose
 * output is `JSON.stringify(NodeWithScore[])`: `[{"node":{"id_","text","metadata",…},"score"}]`.
 * Python LlamaIndex (`opentelemetry-instrumentation-llamaindex`): `{Class}.task` spans
 * (`VectorIndexRetriever.task`) whose input is `{"query_bundle":{"query_str":…}}` and whose output is
 * a list of NodeWithScore JSON strings.
 * @module
 */
import { asObject, contentText, documentOf, documentsOf, flatMetadata, indexed, jsonOf, pathOf, str } from '../attributes.ts';
import type { AttrValue, CapturedSpan, ConventionMapper, GenerationFields, RetrievalFields, SpanRole } from '../types.ts';
import type { Source } from '../../triplet.ts';
import { genAiGeneration } from './genai.ts';

const RETRIEVE_NAME = /retriev|vector_db/i;
const VECTOR_DB_SPAN = /^(pinecone|chroma|qdrant|weaviate|milvus|lancedb|pgvector)\.(query|search)/;

function isTraceloop(span: CapturedSpan): boolean {
  return span.scope.startsWith('@traceloop/') || span.attributes['traceloop.span.kind'] !== undefined || span.attributes['traceloop.workflow.name'] !== undefined;
}

/** A LlamaIndex `QueryBundle` (`{query_str, …}`) or a plain query string. */
function queryBundleText(value: AttrValue | undefined): string | undefined {
  if (typeof value === 'string') return value;
  const text = asObject(value)?.['query_str'];
  return typeof text === 'string' ? text : undefined;
}

/**
 * The query of a retriever task input: `{query}`, `{kwargs:{query}}`, `{args:[query]}` or plain
 * text. A query may also be LlamaIndex message content (`[{type:'text', text}]`), or a Python
 * LlamaIndex `QueryBundle` (`{query_bundle: {query_str}}`, `{str_or_query_bundle: …}`).
 */
export function entityQuery(input: AttrValue | undefined): string | undefined {
  const parsed = jsonOf(input);
  if (typeof parsed === 'string') return parsed;
  const obj = asObject(parsed);
  const bundle = queryBundleText(obj?.['query_bundle'] ?? obj?.['str_or_query_bundle']);
  if (bundle !== undefined) return bundle;
  const direct = contentText(obj?.['query'] ?? asObject(obj?.['kwargs'])?.['query'] ?? asObject(obj?.['kwargs'])?.['input']);
  if (direct !== undefined) return direct;
  const args = obj?.['args'];
  if (Array.isArray(args)) {
    const first = args[0];
    if (typeof first === 'string') return first;
    const q = contentText(asObject(first)?.['query']);
    if (q !== undefined) return q;
  }
  return undefined;
}

/**
 * Sources of a retriever task output. LlamaIndex.TS NodeWithScore lists keep each chunk's metadata
 * under `node` (`file_name`, `page_label`, …), which the generic document reader does not look at;
 * the id of the document a chunk was split from (`node.relationships.SOURCE.nodeId`) becomes
 * `metadata.ref_doc_id` (Python LlamaIndex's name), since chunk ids are fresh UUIDs per ingestion.
 */
export function entitySources(output: AttrValue | undefined): Source[] {
  let parsed = jsonOf(output);
  // Python LlamaIndex: a list of NodeWithScore objects each serialised to a JSON string.
  if (Array.isArray(parsed) && parsed.some((item) => typeof item === 'string' && asObject(pathOf(jsonOf(item), 'node')) !== undefined)) {
    parsed = parsed.map((item) => (typeof item === 'string' ? (jsonOf(item) ?? item) : item));
  }
  if (!Array.isArray(parsed) || !parsed.some((item) => asObject(pathOf(item, 'node')) !== undefined)) return documentsOf(parsed);
  return parsed.flatMap((item) => {
    const doc = documentOf(item);
    if (!doc) return [];
    const metadata = { ...flatMetadata(pathOf(item, 'node.metadata')), ...doc.metadata };
    const refDocId = pathOf(item, 'node.relationships.SOURCE.nodeId');
    if (typeof refDocId === 'string' && metadata['ref_doc_id'] === undefined) metadata['ref_doc_id'] = refDocId;
    return [Object.keys(metadata).length > 0 ? { ...doc, metadata } : doc];
  });
}

function eventSources(span: CapturedSpan): Source[] {
  const out: Source[] = [];
  for (const e of span.events) {
    const prefix = e.name === 'db.query.result' ? 'db.query.result' : e.name === 'db.search.result' ? 'db.search.result' : undefined;
    if (!prefix) continue;
    const a = e.attributes;
    const content = str(a, `${prefix}.document`) ?? str(a, `${prefix}.entity`);
    if (content === undefined || content === '') continue;
    const source: Source = { content };
    const id = str(a, `${prefix}.id`);
    if (id !== undefined) source.id = id;
    const score = a[`${prefix}.score`] ?? a[`${prefix}.distance`];
    if (typeof score === 'number' && Number.isFinite(score)) source.score = score;
    const metadata = flatMetadata(a[`${prefix}.metadata`]);
    if (metadata) source.metadata = metadata;
    out.push(source);
  }
  return out;
}

/** Pinecone: ids/scores as span attributes, chunk text in the per-match metadata event. */
function pineconeSources(span: CapturedSpan): Source[] {
  const matches = indexed(span.attributes, 'db.vector.query.result');
  return matches.flatMap((m, i) => {
    const meta = span.events.find((e) => e.name === `pinecone.query.result.${i}.metadata`)?.attributes;
    const content = meta ? (str(meta, 'text') ?? str(meta, 'content') ?? str(meta, 'chunk')) : undefined;
    if (content === undefined) return [];
    const source: Source = { content };
    if (typeof m['id'] === 'string') source.id = m['id'];
    if (typeof m['score'] === 'number') source.score = m['score'];
    return [source];
  });
}

export const traceloopMapper: ConventionMapper = {
  name: 'traceloop',

  role(span: CapturedSpan): SpanRole | undefined {
    const a = span.attributes;
    if (VECTOR_DB_SPAN.test(span.name) && (span.events.length > 0 || a['db.vector.query.result.0.id'] !== undefined)) return 'retrieval';
    if (!isTraceloop(span)) return undefined;
    const op = str(a, 'gen_ai.operation.name');
    if (op === 'vector_db_retrieve') return 'retrieval';
    const kind = str(a, 'traceloop.span.kind');
    if (kind === 'task' || kind === 'tool') {
      const name = str(a, 'traceloop.entity.name') ?? span.name;
      return RETRIEVE_NAME.test(name) || RETRIEVE_NAME.test(span.name) ? 'retrieval' : undefined;
    }
    if (kind !== undefined) return undefined;
    const requestType = str(a, 'llm.request.type');
    if (op === 'chat' || op === 'text_completion' || op === 'generate_content' || requestType === 'chat' || requestType === 'completion') return 'generation';
    return undefined;
  },

  generation(span, logs): GenerationFields {
    return genAiGeneration(span, logs);
  },

  retrieval(span: CapturedSpan): RetrievalFields {
    const a = span.attributes;
    const fields: RetrievalFields = {};
    let sources: Source[] = entitySources(a['traceloop.entity.output'] ?? a['gen_ai.task.output']);
    if (sources.length === 0) sources = eventSources(span);
    if (sources.length === 0) sources = pineconeSources(span);
    if (sources.length > 0) fields.sources = sources;
    const query = entityQuery(a['traceloop.entity.input'] ?? a['gen_ai.task.input']);
    if (query !== undefined && query !== '') fields.query = query;
    return fields;
  },
};

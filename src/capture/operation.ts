/**
 * Recognises model calls that are not generations — embeddings, reranking, moderation, tool and
 * guardrail calls — in every convention ragwatch reads, so none of them becomes a triplet (an
 * embedding call has a model and an input but no answer: scored, it would drag every mean down).
 * Applied before and after the convention mappers: one rule for all of them, the custom mapper too.
 * @module
 */
import { firstStr, str } from './attributes.ts';
import type { CapturedSpan } from './types.ts';

/** Why a model-call span is not a generation (the `operation` label of the ignored counter). */
export type NonGenerationOperation = 'embedding' | 'rerank' | 'moderation' | 'tool' | 'guardrail' | 'evaluator';

/** OTel GenAI `gen_ai.operation.name` values that are not inference. */
const GENAI_OPS: Record<string, NonGenerationOperation> = { embeddings: 'embedding', execute_tool: 'tool' };
/** OpenLLMetry `llm.request.type` values that are not inference. */
const REQUEST_TYPES: Record<string, NonGenerationOperation> = { embedding: 'embedding', rerank: 'rerank' };
/** OpenInference span kinds that are model calls but not generations (RERANKER carries documents: a retrieval). */
const OPENINFERENCE_KINDS: Record<string, NonGenerationOperation> = { EMBEDDING: 'embedding', TOOL: 'tool', GUARDRAIL: 'guardrail', EVALUATOR: 'evaluator' };
/** Langfuse observation types that are not generations. */
const LANGFUSE_TYPES: Record<string, NonGenerationOperation> = { embedding: 'embedding', tool: 'tool', guardrail: 'guardrail', evaluator: 'evaluator' };
/** Vercel AI SDK operations (`ai.embed`, `ai.embedMany.doEmbed`, `ai.rerank`). */
const VERCEL_OP = /^ai\.(embed|embedMany|rerank)(\.|$)/;
/**
 * Model names and span names of such calls. Langfuse's `observeOpenAI` records `embeddings.create`
 * as a *generation* named `OpenAI.embeddings`: only the name and the model tell it apart.
 */
const NAME = /(^|[^a-z])(embed(ding)?s?|rerank(er|ing)?|moderations?)([^a-z]|$)/i;
const MODEL_KEYS = ['gen_ai.request.model', 'gen_ai.response.model', 'llm.model_name', 'llm.request.model', 'langfuse.observation.model.name', 'ai.model.id'];

function fromName(name: string | undefined): NonGenerationOperation | undefined {
  const m = name === undefined ? null : NAME.exec(name);
  if (!m) return undefined;
  const word = m[2]!.toLowerCase();
  return word.startsWith('embed') ? 'embedding' : word.startsWith('rerank') ? 'rerank' : 'moderation';
}

/**
 * The non-generation operation a span declares through its convention's operation attribute
 * (`gen_ai.operation.name`, `llm.request.type`, `openinference.span.kind`,
 * `langfuse.observation.type`, `ai.operationId`), or `undefined`. Pure; never throws.
 */
export function declaredNonGeneration(span: CapturedSpan): NonGenerationOperation | undefined {
  const a = span.attributes;
  const op = str(a, 'gen_ai.operation.name');
  if (op !== undefined && GENAI_OPS[op]) return GENAI_OPS[op];
  const requestType = str(a, 'llm.request.type');
  if (requestType !== undefined && REQUEST_TYPES[requestType]) return REQUEST_TYPES[requestType];
  const oiKind = str(a, 'openinference.span.kind');
  if (oiKind !== undefined && OPENINFERENCE_KINDS[oiKind]) return OPENINFERENCE_KINDS[oiKind];
  const lfType = str(a, 'langfuse.observation.type');
  if (lfType !== undefined && LANGFUSE_TYPES[lfType]) return LANGFUSE_TYPES[lfType];
  const aiOp = str(a, 'ai.operationId') ?? (span.name.startsWith('ai.') ? span.name : undefined);
  const vercel = aiOp === undefined ? null : VERCEL_OP.exec(aiOp);
  if (vercel) return vercel[1] === 'rerank' ? 'rerank' : 'embedding';
  // OpenLLMetry wraps framework embedding calls as task spans (`base_embedding.get_query_embedding`).
  if (str(a, 'traceloop.span.kind') === 'task') return fromName(str(a, 'traceloop.entity.name') ?? span.name);
  return undefined;
}

/**
 * For a span a mapper took for a generation: the operation it really is, declared or told by its
 * model or span name (`text-embedding-3-small`, `OpenAI.embeddings`), or `undefined`.
 */
export function nonGenerationOperation(span: CapturedSpan): NonGenerationOperation | undefined {
  return declaredNonGeneration(span) ?? fromName(firstStr(span.attributes, MODEL_KEYS)) ?? fromName(span.name);
}

/**
 * Vercel AI SDK ≤ v6 (and v7 `LegacyOpenTelemetry`) `experimental_telemetry` spans: provider
 * calls `ai.<fn>.doGenerate|doStream` are generations (`ai.prompt.messages`, `ai.response.text`,
 * `ai.response.msToFirstChunk`), `ai.toolCall` results are sources (RAG as a tool). The SDK has
 * no retriever abstraction: documents placed in the prompt need the `custom.promptSources` pattern.
 * v7's `OpenTelemetry` integration emits GenAI spans (`chat`, `execute_tool`): the genai mapper.
 * @module
 */
import { unreadableMessages, chatTexts, firstNum, firstStr, jsonOf, lastOfRole, asObject, str } from '../attributes.ts';
import type { CapturedSpan, ConventionMapper, GenerationFields, RetrievalFields, SpanRole } from '../types.ts';
import { toolQuery, toolSources } from './genai.ts';

const PROVIDER_CALL = /^ai\.[A-Za-z]+\.(doGenerate|doStream)$/;

export const vercelAiMapper: ConventionMapper = {
  name: 'vercel-ai',

  role(span: CapturedSpan): SpanRole | undefined {
    const op = str(span.attributes, 'ai.operationId') ?? span.name;
    if (op.startsWith('ai.') && PROVIDER_CALL.test(op)) return 'generation';
    if (op === 'ai.toolCall' && span.attributes['ai.toolCall.result'] !== undefined) return 'retrieval';
    return undefined;
  },

  generation(span: CapturedSpan): GenerationFields {
    const a = span.attributes;
    const fields: GenerationFields = {};
    let messages = chatTexts(a['ai.prompt.messages']);
    if (messages.length === 0) {
      // ai.prompt (operation span shape): {system, prompt, messages}
      const prompt = asObject(jsonOf(a['ai.prompt']));
      const text = prompt?.['prompt'];
      messages = typeof text === 'string' ? [{ role: 'user', content: text }] : chatTexts(prompt?.['messages']);
      const system = prompt?.['system'];
      if (typeof system === 'string') messages.unshift({ role: 'system', content: system });
    }
    if (messages.length > 0) fields.inputMessages = messages;
    const unreadable = unreadableMessages('ai.prompt.messages', a['ai.prompt.messages']);
    if (unreadable !== undefined) fields.inputMessagesIgnored = unreadable;
    const query = lastOfRole(messages, 'user');
    if (query !== undefined) fields.query = query;
    const response = firstStr(a, ['ai.response.text', 'ai.result.text']);
    if (response !== undefined) fields.response = response;
    const model = firstStr(a, ['ai.response.model', 'gen_ai.response.model', 'ai.model.id', 'gen_ai.request.model']);
    if (model !== undefined) fields.model = model;
    const inTok = firstNum(a, ['ai.usage.inputTokens', 'ai.usage.promptTokens', 'gen_ai.usage.input_tokens']);
    if (inTok !== undefined) fields.inputTokens = inTok;
    const outTok = firstNum(a, ['ai.usage.outputTokens', 'ai.usage.completionTokens', 'gen_ai.usage.output_tokens']);
    if (outTok !== undefined) fields.outputTokens = outTok;
    return fields;
  },

  retrieval(span: CapturedSpan): RetrievalFields {
    const a = span.attributes;
    const fields: RetrievalFields = {};
    const sources = toolSources(a['ai.toolCall.result']);
    if (sources.length > 0) fields.sources = sources;
    const query = toolQuery(a['ai.toolCall.args']);
    if (query !== undefined) fields.query = query;
    return fields;
  },
};

/**
 * Builds OTLP/JSON trace export bodies for tests and the demo: a RAG request with a chain root,
 * an OpenInference RETRIEVER span and an LLM span.
 */
import { randomBytes } from 'node:crypto';

type KV = { key: string; value: Record<string, unknown> };

function kv(key: string, value: string | number | boolean): KV {
  if (typeof value === 'string') return { key, value: { stringValue: value } };
  if (typeof value === 'boolean') return { key, value: { boolValue: value } };
  return Number.isInteger(value) ? { key, value: { intValue: String(value) } } : { key, value: { doubleValue: value } };
}

function attrs(map: Record<string, string | number | boolean>): KV[] {
  return Object.entries(map).map(([k, v]) => kv(k, v));
}

/** Hex id of n random bytes. */
export function hexId(bytes: 16 | 8): string {
  return randomBytes(bytes).toString('hex');
}

/** One RAG request in OpenInference convention. */
export interface RagRequest {
  query: string;
  documents: Array<{ id?: string; content: string; score?: number }>;
  response: string;
  service?: string;
  /** The release: the resource's `service.version`. */
  release?: string;
  model?: string;
  traceId?: string;
  /** Time to first token, ms, recorded as OpenInference's first-token event. */
  ttftMs?: number;
  durationMs?: number;
  outputTokens?: number;
  startMs?: number;
  /** A chat: the session id (OpenInference `session.id` on every span) and the earlier turns (input messages before the question). */
  sessionId?: string;
  history?: Array<{ role: 'user' | 'assistant'; content: string }>;
  /** Extra attributes of the root (request) span, e.g. the user's feedback. */
  rootAttributes?: Record<string, string | number | boolean>;
  /** Extra attributes of the LLM span, e.g. `gen_ai.response.id`. */
  llmAttributes?: Record<string, string | number | boolean>;
  /** Extra attributes of the resource, e.g. a tenant id. */
  resourceAttributes?: Record<string, string | number | boolean>;
  /** Events of the root span (name, attributes), e.g. a feedback event. */
  rootEvents?: Array<{ name: string; attributes: Record<string, string | number | boolean> }>;
}

/** Builds an OTLP/JSON ExportTraceServiceRequest for one RAG request. */
export function openInferenceTrace(req: RagRequest): { body: Record<string, unknown>; traceId: string; llmSpanId: string } {
  const traceId = req.traceId ?? hexId(16);
  const rootId = hexId(8);
  const retrieverId = hexId(8);
  const llmId = hexId(8);
  const t0 = req.startMs ?? Date.now() - 2000;
  const ns = (ms: number) => (BigInt(Math.round(ms * 1000)) * 1000n).toString();
  const llmStart = t0 + 60;
  const llmEnd = llmStart + (req.durationMs ?? 900);
  const docAttrs: Record<string, string | number> = {};
  req.documents.forEach((d, i) => {
    docAttrs[`retrieval.documents.${i}.document.content`] = d.content;
    if (d.id !== undefined) docAttrs[`retrieval.documents.${i}.document.id`] = d.id;
    if (d.score !== undefined) docAttrs[`retrieval.documents.${i}.document.score`] = d.score;
  });
  const llmAttrs: Record<string, string | number> = {
    'openinference.span.kind': 'LLM',
    'llm.model_name': req.model ?? 'gpt-4o-mini',
    'llm.input_messages.0.message.role': 'system',
    'llm.input_messages.0.message.content': 'Answer only from the provided context.',
    [`llm.input_messages.${(req.history?.length ?? 0) + 1}.message.role`]: 'user',
    [`llm.input_messages.${(req.history?.length ?? 0) + 1}.message.content`]: `Context:\n${req.documents.map((d) => d.content).join('\n')}\n\nQuestion: ${req.query}`,
    'llm.output_messages.0.message.role': 'assistant',
    'llm.output_messages.0.message.content': req.response,
    'llm.token_count.prompt': 120,
  };
  if (req.outputTokens !== undefined) llmAttrs['llm.token_count.completion'] = req.outputTokens;
  req.history?.forEach((m, i) => {
    llmAttrs[`llm.input_messages.${i + 1}.message.role`] = m.role;
    llmAttrs[`llm.input_messages.${i + 1}.message.content`] = m.content;
  });
  if (req.sessionId !== undefined) llmAttrs['session.id'] = req.sessionId;
  Object.assign(llmAttrs, req.llmAttributes);
  const events = req.ttftMs !== undefined ? [{ name: 'First Token Stream Event', timeUnixNano: ns(llmStart + req.ttftMs), attributes: [] }] : [];
  const body = {
    resourceSpans: [
      {
        resource: { attributes: attrs({ 'service.name': req.service ?? 'rag-demo', ...(req.release ? { 'service.version': req.release } : {}), ...req.resourceAttributes }) },
        scopeSpans: [
          {
            scope: { name: 'openinference-test' },
            spans: [
              { traceId, spanId: rootId, name: 'rag.request', kind: 2, startTimeUnixNano: ns(t0), endTimeUnixNano: ns(llmEnd + 5), attributes: attrs({ 'openinference.span.kind': 'CHAIN', 'input.value': req.query, 'http.route': '/ask', ...req.rootAttributes }), events: (req.rootEvents ?? []).map((e) => ({ name: e.name, timeUnixNano: ns(llmEnd + 2), attributes: attrs(e.attributes) })) },
              { traceId, spanId: llmId, parentSpanId: rootId, name: 'ChatCompletion', kind: 3, startTimeUnixNano: ns(llmStart), endTimeUnixNano: ns(llmEnd), attributes: attrs(llmAttrs), events },
              { traceId, spanId: retrieverId, parentSpanId: rootId, name: 'retrieve', kind: 1, startTimeUnixNano: ns(t0 + 5), endTimeUnixNano: ns(t0 + 50), attributes: attrs({ 'openinference.span.kind': 'RETRIEVER', 'input.value': req.query, ...docAttrs }) },
            ],
          },
        ],
      },
    ],
  };
  return { body, traceId, llmSpanId: llmId };
}

/** A grounded, two-sentence-plus RAG example used across tests. */
export const CLOCK_TOWER: RagRequest = {
  query: 'When was the Chimnabai Clock Tower completed, and who was it named after?',
  documents: [
    { id: 'doc-1', score: 0.91, content: 'The Chimnabai Clock Tower is a clock tower in the Raopura area of Vadodara, Gujarat, India. It was completed in 1896 and named in memory of Chimnabai I, a queen of Baroda State.' },
    { id: 'doc-2', score: 0.42, content: 'It was inaugurated by Mir Kamaluddin Hussainkhan, the last Nawab of Baroda.' },
  ],
  response: 'The Chimnabai Clock Tower was completed in 1896. It was named after Chimnabai I, a queen of Baroda State. The construction of the clock tower was completed in 1896.',
  ttftMs: 250,
  durationMs: 900,
  outputTokens: 41,
};

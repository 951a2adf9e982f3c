/**
 * A two-span RAG trace (OpenInference retriever + LLM) as the collector benches ingest it.
 * @module
 */
import { randomBytes } from 'node:crypto';
import type { CapturedSpan } from '../src/capture/types.ts';

/** Trace `i`: a retriever span with three documents and an LLM span answering from them. */
export function ragTrace(i: number): CapturedSpan[] {
  const traceId = randomBytes(16).toString('hex');
  const t0 = Date.now() - 5_000;
  const base = { traceId, kind: 1, events: [], droppedEventsCount: 0, resource: { 'service.name': 'bench-rag' }, scope: 'bench' };
  const docs: Record<string, string | number> = {};
  for (let d = 0; d < 3; d++) {
    docs[`retrieval.documents.${d}.document.content`] = `Document ${d} about topic ${i}: the widget was made in 2021 by ACME. `.repeat(4);
    docs[`retrieval.documents.${d}.document.id`] = `doc-${d}`;
  }
  const retriever: CapturedSpan = { ...base, spanId: randomBytes(8).toString('hex'), name: 'retrieve', startMs: t0, endMs: t0 + 20, attributes: { 'openinference.span.kind': 'RETRIEVER', 'input.value': `What about topic ${i}?`, ...docs } };
  const llm: CapturedSpan = {
    ...base,
    spanId: randomBytes(8).toString('hex'),
    name: 'ChatCompletion',
    startMs: t0 + 30,
    endMs: t0 + 900,
    attributes: {
      'openinference.span.kind': 'LLM',
      'llm.model_name': 'gpt-4o-mini',
      'llm.input_messages.0.message.role': 'user',
      'llm.input_messages.0.message.content': `What about topic ${i}?`,
      'llm.output_messages.0.message.role': 'assistant',
      'llm.output_messages.0.message.content': `Topic ${i} is a widget made in 2021 by ACME. It is blue.`,
    },
  };
  // As the collector receives them: strings decoded from OTLP are flat, not the ropes that template
  // literals and repeat() build (a rope is flattened, i.e. copied, on first read).
  return JSON.parse(JSON.stringify([retriever, llm])) as CapturedSpan[];
}


/**
 * OTLP export bodies of RAG traces for the ingest benches: real SDK spans serialized by
 * @opentelemetry/otlp-transformer, in both encodings.
 */
import { context, trace, type Span } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

/** Traces per body. */
export const TRACES_PER_BODY = 20;
/** Spans per trace: chain root, retriever, LLM. */
export const SPANS_PER_TRACE = 3;

/** Sets five OpenInference retrieval documents (content, id, score) on a retriever span. */
export function setRetrievedDocuments(span: Span, content: (doc: number) => string): void {
  for (let d = 0; d < 5; d++) {
    span.setAttribute(`retrieval.documents.${d}.document.content`, content(d));
    span.setAttribute(`retrieval.documents.${d}.document.id`, `doc-${d}`);
    span.setAttribute(`retrieval.documents.${d}.document.score`, 0.9 - d / 10);
  }
}

/** One export body, both encodings of the same spans. */
export interface OtlpBody {
  json: Buffer;
  protobuf: Buffer;
}

/**
 * Returns a function that makes one body of {@link TRACES_PER_BODY} RAG traces (root, retriever
 * with 5 documents, streaming LLM span) per call, with fresh trace ids every time (re-sent spans
 * are recognised as duplicates).
 */
export function otlpBodyMaker(): () => OtlpBody {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const tracer = provider.getTracer('bench');
  return () => {
    exporter.reset();
    for (let t = 0; t < TRACES_PER_BODY; t++) {
      const root = tracer.startSpan('rag.request', { attributes: { 'openinference.span.kind': 'CHAIN', 'input.value': `What is item ${t}?`, 'http.route': '/ask' } });
      const ctx = trace.setSpan(context.active(), root);
      const r = tracer.startSpan('retrieve', { attributes: { 'openinference.span.kind': 'RETRIEVER', 'input.value': `What is item ${t}?` } }, ctx);
      setRetrievedDocuments(r, (d) => `Item ${t} is described in document ${d}. It has several properties worth knowing.`);
      r.end();
      const l = tracer.startSpan('ChatCompletion', {
        attributes: {
          'openinference.span.kind': 'LLM',
          'llm.model_name': 'gpt-4o-mini',
          'llm.input_messages.0.message.role': 'user',
          'llm.input_messages.0.message.content': `What is item ${t}?`,
          'llm.output_messages.0.message.role': 'assistant',
          'llm.output_messages.0.message.content': `Item ${t} is described in the documents. It has several properties.`,
          'llm.token_count.completion': 14,
        },
      }, ctx);
      l.addEvent('First Token Stream Event');
      l.end();
      root.end();
    }
    const spans = exporter.getFinishedSpans();
    return { json: Buffer.from(JsonTraceSerializer.serializeRequest(spans)!), protobuf: Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!) };
  };
}

/**
 * OpenTelemetry instrumentation of the demo RAG service with the real SDK: a tracer provider whose
 * batch processor exports OTLP/HTTP to ragwatch, the W3C trace-context propagator (so a probe's
 * `traceparent` becomes the request's trace id), and OpenInference-convention spans: a CHAIN root
 * per request, a RETRIEVER span with the retrieved pages and an LLM span with the answer.
 */
import { ROOT_CONTEXT, SpanKind, trace, type Tracer } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import type { IncomingHttpHeaders } from 'node:http';

/** The service's tracing: `traced` wraps one request, `shutdown` flushes and stops the exporter. */
export interface DemoTracing {
  traced(headers: IncomingHttpHeaders, question: string, work: (spans: { retrieved: (docs: ReadonlyArray<{ id: string; content: string }>) => void; answered: (answer: string, prompt: string) => void }) => void): void;
  shutdown(): Promise<void>;
}

/** Tracing that exports to `otlpUrl` (ragwatch's OTLP/HTTP base, e.g. http://127.0.0.1:4318), with `release` as `service.version`. */
export function demoTracing(otlpUrl: string, serviceName = 'acme-rag-demo', release?: string): DemoTracing {
  const exporter = new OTLPTraceExporter({ url: `${otlpUrl.replace(/\/+$/, '')}/v1/traces` });
  const provider = new TracerProvider({ resource: resourceFromAttributes({ 'service.name': serviceName, ...(release ? { 'service.version': release } : {}) }), spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: 200 })] });
  const tracer: Tracer = provider.getTracer(serviceName, '1.0.0');
  const propagator = new W3CTraceContextPropagator();
  const getter = { keys: (h: IncomingHttpHeaders) => Object.keys(h), get: (h: IncomingHttpHeaders, k: string) => h[k] };
  return {
    traced(headers, question, work) {
      const parent = propagator.extract(ROOT_CONTEXT, headers, getter);
      const root = tracer.startSpan('POST /ask', { kind: SpanKind.SERVER, attributes: { 'http.route': '/ask', 'openinference.span.kind': 'CHAIN', 'input.value': question } }, parent);
      const ctx = trace.setSpan(parent, root);
      let answer = '';
      work({
        retrieved(docs) {
          const attrs: Record<string, string> = { 'openinference.span.kind': 'RETRIEVER', 'input.value': question };
          docs.forEach((d, i) => {
            attrs[`retrieval.documents.${i}.document.id`] = d.id;
            attrs[`retrieval.documents.${i}.document.content`] = d.content;
          });
          tracer.startSpan('retrieve', { attributes: attrs }, ctx).end();
        },
        answered(text, prompt) {
          answer = text;
          tracer
            .startSpan('extractive-answer', {
              kind: SpanKind.CLIENT,
              attributes: {
                'openinference.span.kind': 'LLM',
                'llm.model_name': 'extractive-answerer',
                'llm.input_messages.0.message.role': 'user',
                'llm.input_messages.0.message.content': prompt,
                'llm.output_messages.0.message.role': 'assistant',
                'llm.output_messages.0.message.content': text,
              },
            }, ctx)
            .end();
        },
      });
      root.setAttribute('output.value', answer);
      root.end();
    },
    shutdown: () => provider.shutdown(),
  };
}

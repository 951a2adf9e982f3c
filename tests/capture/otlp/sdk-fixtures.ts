/**
 * Real OpenTelemetry SDK spans and log records for decoder tests, serialized by the SDK's own
 * OTLP serializers (`@opentelemetry/otlp-transformer`), so the decoder is checked against an
 * independent encoder of both OTLP/JSON and protobuf.
 */
import { SpanKind, context, trace } from '@opentelemetry/api';
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor, type ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { JsonLogsSerializer, JsonTraceSerializer, ProtobufLogsSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';

/** A RAG-shaped trace (root, retriever, LLM with a first-token event) and GenAI log events. */
export interface SdkFixture {
  spans: ReadableSpan[];
  logs: ReadableLogRecord[];
  traceJson: Buffer;
  traceProtobuf: Buffer;
  logsJson: Buffer;
  logsProtobuf: Buffer;
}

/** Records one trace and its log events with the real SDK and serializes them both ways. */
export async function sdkFixture(): Promise<SdkFixture> {
  const spanExporter = new InMemorySpanExporter();
  const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spanExporter })] });
  const logExporter = new InMemoryLogRecordExporter();
  const loggerProvider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter: logExporter })] });
  const tracer = tracerProvider.getTracer('ragwatch-test', '1.0.0');
  const logger = loggerProvider.getLogger('ragwatch-test');

  const root = tracer.startSpan('rag.request', { kind: SpanKind.SERVER, attributes: { 'http.route': '/ask', 'openinference.span.kind': 'CHAIN' } });
  const ctx = trace.setSpan(context.active(), root);
  const retriever = tracer.startSpan(
    'retrieve',
    { attributes: { 'openinference.span.kind': 'RETRIEVER', 'retrieval.documents.0.document.content': 'Paris is the capital of France.', 'retrieval.documents.0.document.score': 0.87, 'retrieval.top_k': 3, tags: ['a', 'b'] } },
    ctx,
  );
  retriever.end();
  const llm = tracer.startSpan('ChatCompletion', { kind: SpanKind.CLIENT, attributes: { 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.usage.output_tokens': 42, stream: true, 'gen_ai.input.messages': '[{"role":"user","parts":[{"type":"text","content":"Capital of France?"}]}]' } }, ctx);
  llm.addEvent('First Token Stream Event', { 'chunk.index': 0 });
  logger.emit({
    eventName: 'gen_ai.choice',
    body: { index: 0, message: { role: 'assistant', content: 'Paris.', parts: [{ type: 'text', n: 1 }] } },
    attributes: { 'gen_ai.system': 'openai', 'event.domain': 'gen_ai' },
    context: trace.setSpan(ctx, llm),
  });
  logger.emit({ body: 'plain log line without a span', attributes: { 'log.count': 7 } });
  llm.end();
  root.end();
  await tracerProvider.forceFlush();
  await loggerProvider.forceFlush();

  const spans = spanExporter.getFinishedSpans();
  const logs = logExporter.getFinishedLogRecords();
  const bytes = (b: Uint8Array | undefined) => {
    if (!b) throw new Error('serializer returned nothing');
    return Buffer.from(b);
  };
  const result: SdkFixture = {
    spans,
    logs,
    traceJson: bytes(JsonTraceSerializer.serializeRequest(spans)),
    traceProtobuf: bytes(ProtobufTraceSerializer.serializeRequest(spans)),
    logsJson: bytes(JsonLogsSerializer.serializeRequest(logs)),
    logsProtobuf: bytes(ProtobufLogsSerializer.serializeRequest(logs)),
  };
  await tracerProvider.shutdown();
  await loggerProvider.shutdown();
  return result;
}

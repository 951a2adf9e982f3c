/**
 * ingest_json_ratio_vs_parse: OTLP/JSON bodies decoded (the server's entry point, `decodeTraces`)
 * and captured (assembled, mapped, latency recorded) per second, vs plain `JSON.parse` of the same
 * bodies. ingest_protobuf_spans_per_s: the same for the protobuf encoding of the same spans, with
 * its ratio to JSON. Bodies are real SDK spans serialized by @opentelemetry/otlp-transformer.
 */
import { context, trace } from '@opentelemetry/api';
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { Capture } from '../src/capture/capture.ts';
import { decodeTraces } from '../src/capture/otlp/decode.ts';
import { defaultConfig } from '../src/config/load.ts';
import { createInstruments } from '../src/metrics/instruments.ts';
import { emit, median, profiled, QUICK } from './lib.ts';

const TRACES_PER_BODY = 20;
const BODIES = QUICK ? 30 : 100;
const ROUNDS = QUICK ? 3 : 7;

/** One body of RAG traces (root, retriever with 5 documents, streaming LLM span) from the real SDK. */
function body(exporter: InMemorySpanExporter, tracer: ReturnType<TracerProvider['getTracer']>) {
  exporter.reset();
  for (let t = 0; t < TRACES_PER_BODY; t++) {
    const root = tracer.startSpan('rag.request', { attributes: { 'openinference.span.kind': 'CHAIN', 'input.value': `What is item ${t}?`, 'http.route': '/ask' } });
    const ctx = trace.setSpan(context.active(), root);
    const r = tracer.startSpan('retrieve', { attributes: { 'openinference.span.kind': 'RETRIEVER', 'input.value': `What is item ${t}?` } }, ctx);
    for (let d = 0; d < 5; d++) {
      r.setAttribute(`retrieval.documents.${d}.document.content`, `Item ${t} is described in document ${d}. It has several properties worth knowing.`);
      r.setAttribute(`retrieval.documents.${d}.document.id`, `doc-${d}`);
      r.setAttribute(`retrieval.documents.${d}.document.score`, 0.9 - d / 10);
    }
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
}

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const tracer = provider.getTracer('bench');
// Fresh trace ids for every round and encoding: re-sent spans are recognised as duplicates.
const makeSet = () => Array.from({ length: BODIES }, () => body(exporter, tracer));
const sets = Array.from({ length: ROUNDS }, () => ({ json: makeSet(), protobuf: makeSet() }));
const totalSpans = BODIES * TRACES_PER_BODY * 3;

let captured = 0;
const config = defaultConfig();
const capture = new Capture({
  config: { ...config.capture, maxTraces: 1_000_000, traceIdleMs: 3_600_000 },
  instruments: createInstruments({ processMetrics: false }),
  onTriplet: () => void captured++,
});

const decodeOnlyMs: Record<'json' | 'protobuf', number[]> = { json: [], protobuf: [] };
async function ingest(kind: 'json' | 'protobuf', round: number): Promise<number> {
  const bodies = sets[round]![kind];
  const t0 = performance.now();
  for (const b of bodies) capture.addSpans(decodeTraces(b[kind], kind === 'json' ? 'application/json' : 'application/x-protobuf').spans, 'otlp');
  // The request path ends here; assembly, mapping and redaction run on capture's timer.
  decodeOnlyMs[kind].push(performance.now() - t0);
  await capture.forceFlush();
  return performance.now() - t0;
}

const parseMs: number[] = [];
const jsonMs: number[] = [];
const protoMs: number[] = [];
await profiled('ingest', async () => {
  for (let r = 0; r < ROUNDS; r++) {
    const t0 = performance.now();
    for (const b of sets[r]!.json) JSON.parse(b.json.toString('utf8'));
    parseMs.push(performance.now() - t0);
    jsonMs.push(await ingest('json', r));
    protoMs.push(await ingest('protobuf', r));
  }
});
await capture.shutdown();
const expected = 2 * ROUNDS * BODIES * TRACES_PER_BODY;
if (captured !== expected) throw new Error(`captured ${captured} triplets, expected ${expected}`);

const rate = (ms: number[]) => totalSpans / (median(ms) / 1000);
emit({ bench: 'ingest', figure: 'ingest_json_ratio_vs_parse', value: rate(jsonMs), unit: 'spans/s', baseline: rate(parseMs), ratio: rate(jsonMs) / rate(parseMs) });
emit({ bench: 'ingest', figure: 'ingest_json_request_path_ratio_vs_parse', value: rate(decodeOnlyMs.json), unit: 'spans/s', baseline: rate(parseMs), ratio: rate(decodeOnlyMs.json) / rate(parseMs) });
emit({ bench: 'ingest', figure: 'ingest_protobuf_spans_per_s', value: rate(protoMs), unit: 'spans/s', baseline: rate(jsonMs), ratio: rate(protoMs) / rate(jsonMs) });

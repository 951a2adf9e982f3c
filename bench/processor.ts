/**
 * processor_onend_ratio_vs_bsp / processor_onend_p99_us: per-span cost of RagwatchSpanProcessor.onEnd
 * vs the OTel BatchSpanProcessor.onEnd (no-op exporter) on the same RAG-shaped spans (a retriever
 * with 5 documents and an LLM span with messages), interleaved in the same process.
 */
import { TracerProvider, BatchSpanProcessor, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import { RagwatchSpanProcessor } from '../src/index.ts';
import { emit, median, percentile, QUICK } from './lib.ts';
import { setRetrievedDocuments } from './otlp-bodies.ts';

function ragSpans(n: number): ReadableSpan[] {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const tracer = provider.getTracer('bench');
  for (let i = 0; i < n / 2; i++) {
    const r = tracer.startSpan('retrieve', { attributes: { 'openinference.span.kind': 'RETRIEVER', 'input.value': `question ${i}?` } });
    setRetrievedDocuments(r, (d) => `Document ${d} text about topic ${i}. `.repeat(8));
    r.end();
    const l = tracer.startSpan('ChatCompletion', {
      attributes: {
        'openinference.span.kind': 'LLM',
        'llm.model_name': 'gpt-4o-mini',
        'llm.input_messages.0.message.role': 'system',
        'llm.input_messages.0.message.content': 'Answer from the context only.',
        'llm.input_messages.1.message.role': 'user',
        'llm.input_messages.1.message.content': `Context: ... Question ${i}?`,
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.content': 'An answer. With two sentences.',
      },
    });
    l.end();
  }
  return exporter.getFinishedSpans();
}

const noopExporter: SpanExporter = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };

const BATCH = 1000; // below both processors' queue bound (2048): measures the accepting path
const spans = ragSpans(BATCH);
const rounds = QUICK ? 20 : 200;
const ragwatch = new RagwatchSpanProcessor({ config: { sampling: { rate: 0 } }, scheduledDelayMillis: 3_600_000 });
const bsp = new BatchSpanProcessor({ exporter: noopExporter, maxQueueSize: 4096, maxExportBatchSize: 4096, scheduledDelayMillis: 3_600_000 });

const oursNs: number[] = [];
const bspNs: number[] = [];
const perCallUs: number[] = [];
for (let round = 0; round < rounds; round++) {
  // Alternate the order so neither processor always runs on a warmer cache.
  const order = round % 2 === 0 ? ['ours', 'bsp'] : ['bsp', 'ours'];
  for (const which of order) {
    const target = which === 'ours' ? ragwatch : bsp;
    const t0 = process.hrtime.bigint();
    for (const s of spans) target.onEnd(s);
    const dt = Number(process.hrtime.bigint() - t0) / spans.length;
    (which === 'ours' ? oursNs : bspNs).push(dt);
  }
  // Per-call latency of ours, timed one call at a time (includes ~50 ns timer overhead).
  if (round % 10 === 0) {
    await ragwatch.forceFlush();
    for (const s of spans) {
      const t0 = process.hrtime.bigint();
      ragwatch.onEnd(s);
      perCallUs.push(Number(process.hrtime.bigint() - t0) / 1000);
    }
  }
  await ragwatch.forceFlush();
  await bsp.forceFlush();
}
await ragwatch.shutdown();
await bsp.shutdown();

const ours = median(oursNs);
const base = median(bspNs);
emit({ bench: 'processor', figure: 'processor_onend_ratio_vs_bsp', value: ours, unit: 'ns/span', baseline: base, ratio: ours / base });
emit({ bench: 'processor', figure: 'processor_onend_p99_us', value: percentile(perCallUs, 99), unit: 'us', baseline: null, ratio: null });

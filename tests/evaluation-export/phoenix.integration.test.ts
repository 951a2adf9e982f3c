/**
 * Done-when of issue 46: a real Phoenix server (arize-phoenix from PyPI, run locally with SQLite on
 * loopback) shows ragwatch's verdicts as annotations on the right spans. An instrumented app exports its
 * trace to Phoenix (OTLP/gRPC, the OTel JS exporter) and to `ragwatch start` (OTLP/HTTP); ragwatch scores
 * the answer and writes one span annotation per scored metric; reading them back through Phoenix's REST
 * API finds them on the generation span (score, pass/fail label, explanation without the PII canary),
 * none on the other spans.
 */
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as GrpcTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as HttpTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { startApp, type RunningApp } from '../../src/roles/start.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';
import { LexicalJudge } from '../helpers/lexical-judge.ts';
import { phoenixVenv, startPhoenix, type Phoenix } from '../helpers/phoenix.ts';
import { waitFor } from '../helpers/process.ts';

const CANARY = 'canary.person@example-pii.org';
const venv = phoenixVenv('phoenix span annotations');

interface PhoenixAnnotation {
  span_id: string;
  name: string;
  annotator_kind: string;
  identifier: string;
  result: { score: number | null; label: string | null; explanation: string | null };
  metadata: Record<string, unknown>;
}

describe.skipIf(venv === undefined)('Phoenix span annotations (real Phoenix)', () => {
  let phoenix: Phoenix;
  let app: RunningApp;
  let dataDir: string;
  const scored: Array<{ record: ScoreRecord; triplet: SampledTriplet }> = [];

  beforeAll(async () => {
    phoenix = await startPhoenix(venv!);
    dataDir = mkdtempSync(join(tmpdir(), 'rw-phoenix-app-'));
    const config = loadConfig({
      env: {},
      overrides: {
        server: { otlpPort: 0, httpPort: 0, otlpGrpc: false },
        capture: { traceIdleMs: 100 },
        metrics: { processMetrics: false },
        store: { dataDir },
        evaluationExport: { phoenix: { endpoint: phoenix.url, scheduledDelayMs: 100 } },
      },
    });
    app = await startApp(config, silentLogger, { judge: new LexicalJudge() });
    app.pipeline.sinks.add({ onRecord: (record, triplet) => void (triplet && scored.push({ record, triplet })) });
    await waitFor(() => app.pipeline.ready, 30_000);
  }, 240_000);

  afterAll(async () => {
    await app?.shutdown();
    await phoenix?.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('writes one annotation per scored metric on the generation span, read back through its API', async () => {
    const provider = new TracerProvider({
      resource: resourceFromAttributes({ 'service.name': 'rag-api' }),
      spanProcessors: [new SimpleSpanProcessor({ exporter: new GrpcTraceExporter({ url: phoenix.grpcUrl }) }), new SimpleSpanProcessor({ exporter: new HttpTraceExporter({ url: `http://127.0.0.1:${app.otlp.port}/v1/traces` }) })],
    });
    const tracer = provider.getTracer('rag-app');
    const root = tracer.startSpan('rag-request', { attributes: { 'openinference.span.kind': 'CHAIN', 'input.value': 'When was the clock tower completed?' } });
    const ctx = trace.setSpan(ROOT_CONTEXT, root);
    tracer.startSpan('retrieve', { attributes: { 'openinference.span.kind': 'RETRIEVER', 'input.value': 'When was the clock tower completed?', 'retrieval.documents.0.document.content': 'The Chimnabai Clock Tower was completed in 1896 in Vadodara.' } }, ctx).end();
    const llm = tracer.startSpan('llm', {
      attributes: {
        'openinference.span.kind': 'LLM',
        'llm.model_name': 'gpt-4o-mini',
        'llm.input_messages.0.message.role': 'user',
        'llm.input_messages.0.message.content': 'When was the clock tower completed?',
        'llm.output_messages.0.message.role': 'assistant',
        'llm.output_messages.0.message.content': `The clock tower was completed in 1896. Write to ${CANARY} for tickets.`,
      },
    }, ctx);
    const llmSpanId = llm.spanContext().spanId;
    const rootSpanId = root.spanContext().spanId;
    llm.end();
    root.end();
    await provider.forceFlush();
    await waitFor(() => scored.length >= 1, 30_000);
    const { record, triplet } = scored[0]!;
    expect(triplet.spanId).toBe(llmSpanId);
    const metrics = Object.keys(record.scores).sort();

    const read = async (spanId: string): Promise<PhoenixAnnotation[]> => {
      const res = await fetch(`${phoenix.url}/v1/projects/default/span_annotations?span_ids=${spanId}&limit=100`);
      if (!res.ok) return [];
      return ((await res.json()) as { data: PhoenixAnnotation[] }).data;
    };
    // sync=false: Phoenix writes annotations in the background (and queues those whose span it has not stored yet).
    const annotations = await waitFor(async () => {
      const a = await read(llmSpanId);
      return a.length >= metrics.length ? a : undefined;
    }, 60_000, 500);
    expect(annotations.map((a) => a.name).sort()).toEqual(metrics);
    for (const a of annotations) {
      expect(a.span_id).toBe(llmSpanId);
      expect(a.annotator_kind).toBe('LLM');
      expect(a.identifier).toBe('ragwatch-llm');
      const value = record.scores[a.name as keyof typeof record.scores]!;
      expect(a.result.score).toBeCloseTo(value, 12);
      const threshold = app.quality.settings.alerts.metrics[a.name as keyof typeof app.quality.settings.alerts.metrics]?.threshold;
      if (threshold !== undefined) expect(a.result.label).toBe(value <= threshold ? 'fail' : 'pass');
      expect(a.metadata).toMatchObject({ source: 'ragwatch', trace_id: record.traceId, judge: 'llm', judge_model: 'lexical-test-judge' });
      expect(JSON.stringify(a)).not.toContain(CANARY);
    }
    const grounded = annotations.find((a) => a.name === 'groundedness')!;
    expect(grounded.result.explanation).toMatch(/unsupported claims: .*<EMAIL_1>/);
    expect(await read(rootSpanId)).toEqual([]);
    await provider.shutdown();
  }, 180_000);
});

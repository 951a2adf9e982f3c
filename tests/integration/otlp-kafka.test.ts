/**
 * `ingest.kafka` against the real thing: the project's OpenTelemetry Collector (scripts/collector) with
 * its contrib `kafka` exporter writes OTLP into a real Kafka broker (tests/helpers/kafka-broker.ts) —
 * one pipeline in `otlp_proto` with `partition_traces_by_id`, one in `otlp_json` — and `ragwatch start`
 * reads both topics in its consumer group: every trace is captured and scored; the exporter's messages
 * are as docs/ingest.md says (no headers, the trace id as key, a whole batch per message otherwise);
 * content-only GenAI log events on the logs topic join their spans; every message is counted once with `transport="kafka"`; a garbage message and an
 * oversized one land in the DLQ with their reason and the ragwatch DLQ headers, and what follows them is
 * still read. While capture is nearly full the partition is paused and read again later: a burst
 * larger than the capture buffer is captured whole, nothing dropped. Batches the exporter compresses
 * with snappy, lz4 or zstd (codecs kafkajs lacks) are read as well as gzip ones. And in a split-mode `ragwatch collector` a trace read from the topic leaves on the spans
 * topic exactly as its twin sent over OTLP does: PII redacted, `session.id` pseudonymised.
 */
import { SpanKind, context, trace } from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { OTLPTraceExporter as GrpcTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as HttpTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { Kafka, logLevel, type KafkaMessage } from 'kafkajs';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeOtlpMessage } from '../../src/assembly/otlp-message.ts';
import { parseTraceBatch, type TraceBatch } from '../../src/assembly/span-record.ts';
import { loadConfig } from '../../src/config/load.ts';
import { silentLogger } from '../../src/log.ts';
import { startApp, type RunningApp } from '../../src/roles/start.ts';
import type { SampledTriplet, ScoreRecord } from '../../src/triplet.ts';
import { RAG } from '../capture/helpers/harness.ts';
import { haveKafka, startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-broker.ts';
import { LexicalJudge } from '../helpers/lexical-judge.ts';
import { haveCollector, startCollector, type RunningCollector } from '../helpers/otel-collector.ts';
import { openInferenceTrace, postOtlp } from '../helpers/otlp.ts';
import { metricValue, waitFor } from '../helpers/process.ts';

const SPANS_PROTO = 'otlp_spans';
const SPANS_JSON = 'otlp_spans_json';
const LOGS_JSON = 'otlp_logs';
const DLQ = 'ragwatch.triplets.dlq';
const MAX_MESSAGE_BYTES = 64 * 1024;
const N = 6;
/** The trace of tests/fixtures/otlp/genai.*.json with a retrieval span (the other one is incomplete). */
const GENAI_TRACE = '5e8a1aebaec5b0d6dbf30e57dcdd0d53';

const collectorYaml = (brokers: string[]) => `
receivers:
  otlp/proto:
    protocols:
      grpc: {endpoint: "127.0.0.1:\${env:OTLP_GRPC_PORT}"}
  otlp/json:
    protocols:
      http: {endpoint: "127.0.0.1:\${env:OTLP_HTTP_PORT}"}
processors:
  batch: {timeout: 200ms}
exporters:
  kafka/proto:
    brokers: [${brokers.map((b) => `"${b}"`).join(', ')}]
    traces: {topic: ${SPANS_PROTO}, encoding: otlp_proto}
    partition_traces_by_id: true
  kafka/json:
    brokers: [${brokers.map((b) => `"${b}"`).join(', ')}]
    traces: {topic: ${SPANS_JSON}, encoding: otlp_json}
    logs: {topic: ${LOGS_JSON}, encoding: otlp_json}
    producer: {compression: gzip}
service:
  pipelines:
    traces/proto: {receivers: [otlp/proto], processors: [batch], exporters: [kafka/proto]}
    traces/json: {receivers: [otlp/json], processors: [batch], exporters: [kafka/json]}
    logs/json: {receivers: [otlp/json], processors: [batch], exporters: [kafka/json]}
`;

/** One RAG trace (OpenInference: chain, retriever, LLM) from the real OpenTelemetry JS SDK. */
async function ragSpans(i: number): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ resource: resourceFromAttributes({ 'service.name': 'rag-kafka' }), spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const tracer = provider.getTracer('rag-service');
  const question = `What is stored in vault ${i}?`;
  const root = tracer.startSpan('POST /ask', { kind: SpanKind.SERVER, attributes: { 'openinference.span.kind': 'CHAIN', 'input.value': question } });
  const ctx = trace.setSpan(context.active(), root);
  tracer.startSpan('retrieve', { attributes: { 'openinference.span.kind': 'RETRIEVER', 'input.value': question, 'retrieval.documents.0.document.id': `vault-${i}`, 'retrieval.documents.0.document.content': `Vault ${i} stores gold bars.` } }, ctx).end();
  tracer.startSpan('llm', { kind: SpanKind.CLIENT, attributes: { 'openinference.span.kind': 'LLM', 'llm.model_name': 'gpt-4o-mini', 'llm.input_messages.0.message.role': 'user', 'llm.input_messages.0.message.content': question, 'llm.output_messages.0.message.role': 'assistant', 'llm.output_messages.0.message.content': `Vault ${i} stores gold bars.` } }, ctx).end();
  root.end();
  await provider.forceFlush();
  const spans = exporter.getFinishedSpans();
  await provider.shutdown();
  return spans;
}

const exported = <T>(exporter: { export(items: T[], cb: (r: ExportResult) => void): void }, items: T[]) => new Promise<ExportResult>((resolve) => exporter.export(items, resolve));

/** Every message of `topic` from the start, read with a throwaway group. */
async function readTopic(brokers: string[], topic: string, atLeast: number): Promise<KafkaMessage[]> {
  const consumer = new Kafka({ clientId: 'otlp-kafka-test', brokers, logLevel: logLevel.NOTHING }).consumer({ groupId: `read-${topic}-${Date.now()}` });
  const out: KafkaMessage[] = [];
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void out.push(message) });
    await waitFor(() => out.length >= atLeast, 60_000);
    await new Promise((r) => setTimeout(r, 500));
  } finally {
    await consumer.disconnect();
  }
  return out;
}

const ok = haveCollector('otlp-kafka') && haveKafka('otlp-kafka');
const HMAC_KEY = 'otlp-kafka-test-hmac-key-0123456789abcdef';
const EMAIL = 'jane.doe@example.org';
const SESSION = 'session-of-jane-42';

describe.skipIf(!ok)('Collector kafka exporter → topic → ragwatch start (ingest.kafka)', () => {
  let kafka: KafkaTestCluster;
  let otelcol: RunningCollector;
  let app: RunningApp;
  const scored: Array<{ record: ScoreRecord; triplet: SampledTriplet }> = [];

  beforeAll(async () => {
    kafka = await startKafkaCluster({ nodes: 1 });
    for (const topic of [SPANS_PROTO, SPANS_JSON, LOGS_JSON, DLQ]) await kafka.createTopic(topic, 4);
    const config = loadConfig({
      env: {},
      overrides: {
        server: { otlpPort: 0, otlpGrpcPort: 0, httpPort: 0 },
        metrics: { processMetrics: false },
        sampling: { rate: 1 },
        // Spans and their log records travel on different topics: give the logs time to join.
        capture: { traceIdleMs: 1_500 },
        // The cluster of transport.kafka (transport itself stays in memory: ragwatch start).
        transport: { kafka: { brokers: kafka.brokers } },
        ingest: { kafka: { enabled: true, topics: { traces: [SPANS_PROTO, SPANS_JSON], logs: [LOGS_JSON] }, initialOffset: 'earliest', maxMessageBytes: MAX_MESSAGE_BYTES } },
      },
    });
    app = await startApp(config, silentLogger, { judge: new LexicalJudge() });
    app.pipeline.sinks.add({ onRecord: (record, triplet) => void (triplet && scored.push({ record, triplet })) });
    // Ready = the judge loaded and the OTLP topic consumer joined its group.
    await waitFor(() => app.pipeline.ready && app.otlpTopics?.consumer.running, 60_000, 200);
    otelcol = await startCollector(collectorYaml(kafka.brokers));
  }, 240_000);

  afterAll(async () => {
    await otelcol?.stop();
    await app?.shutdown();
    await kafka?.stop();
  });

  const kafkaCalls = async (labels: Record<string, string>) => metricValue(await app.pipeline.instruments.registry.metrics(), 'ragwatch_ingest_requests_total', { transport: 'kafka', ...labels }) ?? 0;

  it('traces in otlp_proto and otlp_json are captured and scored, each once', async () => {
    const grpc = new GrpcTraceExporter({ url: `http://127.0.0.1:${otelcol.ports.otlpGrpc}` });
    const http = new HttpTraceExporter({ url: `http://127.0.0.1:${otelcol.ports.otlpHttp}/v1/traces` });
    const viaProto: string[] = [];
    const viaJson: string[] = [];
    try {
      for (let i = 0; i < N; i++) {
        const spans = await ragSpans(i);
        const json = i % 2 === 1;
        expect((await exported(json ? http : grpc, spans)).code).toBe(ExportResultCode.SUCCESS);
        (json ? viaJson : viaProto).push(spans[0]!.spanContext().traceId);
      }
    } finally {
      await Promise.all([grpc.shutdown(), http.shutdown()]);
    }
    const all = [...viaProto, ...viaJson];
    await waitFor(() => all.every((id) => scored.some((s) => s.triplet.traceId === id)), 90_000, 200);
    for (const [i, id] of [...viaProto, ...viaJson].entries()) {
      const hits = scored.filter((s) => s.triplet.traceId === id);
      expect(hits, `trace ${id} scored once`).toHaveLength(1);
      const k = i < viaProto.length ? 2 * i : 2 * (i - viaProto.length) + 1;
      expect(hits[0]!.triplet).toMatchObject({ query: `What is stored in vault ${k}?`, response: `Vault ${k} stores gold bars.`, sources: [{ id: `vault-${k}`, content: `Vault ${k} stores gold bars.` }], service: 'rag-kafka', convention: 'openinference' });
      expect(hits[0]!.record.scores.groundedness).toBe(1);
    }
    expect(metricValue(await app.pipeline.instruments.registry.metrics(), 'ragwatch_spans_received_total', { source: 'otlp' })).toBe(3 * N);
  }, 180_000);

  it('the exporter writes what docs/ingest.md says: no headers; with partition_traces_by_id one trace per message, keyed by its id; else no key', async () => {
    const proto = await readTopic(kafka.brokers, SPANS_PROTO, N / 2);
    for (const m of proto) {
      expect(m.headers).toEqual({});
      const decoded = decodeOtlpMessage(m, 'traces', 'otlp_proto', MAX_MESSAGE_BYTES);
      if (!decoded.ok) throw new Error(decoded.error);
      expect(new Set(decoded.spans.map((s) => s.traceId))).toEqual(new Set([m.key!.toString()]));
    }
    const json = await readTopic(kafka.brokers, SPANS_JSON, 1);
    for (const m of json) {
      expect(m.key).toBeNull();
      expect(m.value![0]).toBe('{'.charCodeAt(0));
    }
    const jsonTraces = json.flatMap((m) => {
      const d = decodeOtlpMessage(m, 'traces', 'otlp_json', MAX_MESSAGE_BYTES);
      return d.ok ? d.spans.map((s) => s.traceId) : [];
    });
    expect(new Set(jsonTraces).size).toBe(N / 2);
  }, 120_000);

  it('logs topic: content-only GenAI log events (instrumentation-openai) join their spans into the triplet', async () => {
    // Recorded from @opentelemetry/instrumentation-openai, which puts content only in log records: without them no triplet.
    const traces = readFileSync(fileURLToPath(new URL('../fixtures/otlp/genai.traces.json', import.meta.url)), 'utf8');
    const logs = readFileSync(fileURLToPath(new URL('../fixtures/otlp/genai.logs.json', import.meta.url)), 'utf8');
    const base = `http://127.0.0.1:${otelcol.ports.otlpHttp}`;
    expect((await postOtlp(`${base}/v1/logs`, logs)).status).toBe(200);
    expect((await postOtlp(`${base}/v1/traces`, traces)).status).toBe(200);
    await waitFor(() => scored.some((s) => s.triplet.traceId === GENAI_TRACE), 60_000, 200);
    const t = scored.find((s) => s.triplet.traceId === GENAI_TRACE)!.triplet;
    expect(t).toMatchObject({ convention: 'genai', query: RAG.query, response: RAG.answer, model: 'gpt-4o-mini' });
    expect(t.sources.map((x) => x.content)).toEqual(RAG.docs.map((d) => d.content));
    expect(await kafkaCalls({ endpoint: '/v1/logs', reason: 'ok' })).toBeGreaterThanOrEqual(1);
    expect(metricValue(await app.pipeline.instruments.registry.metrics(), 'ragwatch_logs_received_total', { source: 'otlp' })).toBe(6);
  }, 120_000);

  it('every message is counted once with transport="kafka"; garbage and an oversized message go to the DLQ with their reason', async () => {
    const producer = new Kafka({ clientId: 'otlp-kafka-test', brokers: kafka.brokers, logLevel: logLevel.NOTHING }).producer();
    await producer.connect();
    const garbage = Buffer.from('definitely not an OTLP export request \u0000\u00ff');
    const huge = Buffer.alloc(MAX_MESSAGE_BYTES + 1, 0x0a);
    const after = await ragSpans(200);
    const { ProtobufTraceSerializer } = await import('@opentelemetry/otlp-transformer');
    try {
      await producer.send({ topic: SPANS_PROTO, messages: [{ key: 'garbage', value: garbage }] });
      await producer.send({ topic: SPANS_PROTO, messages: [{ key: 'huge', value: huge }] });
      // A good message after them, on any partition: still read.
      await producer.send({ topic: SPANS_PROTO, messages: [{ value: Buffer.from(ProtobufTraceSerializer.serializeRequest(after)!) }] });
    } finally {
      await producer.disconnect();
    }
    const afterId = after[0]!.spanContext().traceId;
    await waitFor(() => scored.some((s) => s.triplet.traceId === afterId), 60_000, 200);
    const dlq = await readTopic(kafka.brokers, DLQ, 2);
    const byKey = new Map(dlq.map((m) => [m.key?.toString(), m]));
    const header = (m: KafkaMessage, name: string) => m.headers?.[name]?.toString();
    const g = byKey.get('garbage')!;
    expect(g.value).toEqual(garbage);
    expect({ stage: header(g, 'stage'), reason: header(g, 'reason'), topic: header(g, 'original-topic'), size: header(g, 'original-size') }).toEqual({ stage: 'ingest', reason: 'invalid_otlp', topic: SPANS_PROTO, size: String(garbage.length) });
    expect(header(g, 'error')).toMatch(/^not an OTLP trace export in otlp_proto: /);
    const h = byKey.get('huge')!;
    expect({ reason: header(h, 'reason'), truncated: header(h, 'truncated'), size: header(h, 'original-size') }).toEqual({ reason: 'too_large', truncated: undefined, size: String(huge.length) });
    expect(header(h, 'error')).toBe(`value is ${huge.length} bytes, ingest.kafka.maxMessageBytes is ${MAX_MESSAGE_BYTES}`);
    const text = await app.pipeline.instruments.registry.metrics();
    expect(metricValue(text, 'ragwatch_dlq_messages_total', { stage: 'ingest', reason: 'invalid_otlp' })).toBe(1);
    expect(metricValue(text, 'ragwatch_dlq_messages_total', { stage: 'ingest', reason: 'too_large' })).toBe(1);
    expect(await kafkaCalls({ reason: 'invalid', status: '400' })).toBe(1);
    expect(await kafkaCalls({ reason: 'too_large', status: '413' })).toBe(1);
    // Identity: messages read = messages on the topics (each counted once, whatever became of it).
    const admin = await kafka.admin();
    let onTopics = 0;
    for (const topic of [SPANS_PROTO, SPANS_JSON, LOGS_JSON]) for (const p of await admin.fetchTopicOffsets(topic)) onTopics += Number(p.high) - Number(p.low);
    await waitFor(async () => (await kafkaCalls({})) === onTopics, 30_000, 200);
    expect(await kafkaCalls({ reason: 'saturated' })).toBe(0);
  }, 180_000);

  it('split-mode ragwatch collector: a trace from the topic leaves on the spans topic as its twin sent over OTLP does (redacted, pseudonymised)', async () => {
    const topic = 'otlp_spans_split';
    const spansTopic = 'split.spans.v1';
    for (const t of [topic, spansTopic]) await kafka.createTopic(t, 4);
    const config = loadConfig({
      env: {},
      overrides: {
        server: { otlpPort: 0, otlpGrpcPort: 0, httpPort: 0 },
        metrics: { processMetrics: false },
        redaction: { hmacKey: HMAC_KEY },
        transport: { kind: 'kafka', kafka: { brokers: kafka.brokers, assembly: 'spans_topic', topics: { spans: spansTopic }, producer: { lingerMs: 5 } } },
        ingest: { kafka: { enabled: true, groupId: 'split-otlp', topics: { traces: [topic] }, initialOffset: 'earliest' } },
      },
    });
    const collector = await startApp(config, silentLogger, { role: 'collector' });
    const exporterCollector = await startCollector(`
receivers:
  otlp:
    protocols:
      http: {endpoint: "127.0.0.1:\${env:OTLP_HTTP_PORT}"}
exporters:
  kafka:
    brokers: [${kafka.brokers.map((b) => `"${b}"`).join(', ')}]
    traces: {topic: ${topic}, encoding: otlp_proto}
    partition_traces_by_id: true
service:
  pipelines:
    traces: {receivers: [otlp], exporters: [kafka]}
`);
    try {
      await waitFor(() => collector.otlpTopics?.consumer.running, 60_000, 200);
      const request = { query: `Where is my parcel? Write to ${EMAIL}`, documents: [{ id: 'kb-7', content: 'Parcels ship within two days.' }], response: `We will write to ${EMAIL} soon.`, service: 'rag-split', sessionId: SESSION };
      const viaKafka = openInferenceTrace(request);
      const viaGrpc = openInferenceTrace(request);
      expect((await postOtlp(`http://127.0.0.1:${exporterCollector.ports.otlpHttp}/v1/traces`, JSON.stringify(viaKafka.body))).status).toBe(200);
      // The twin straight into the same collector's OTLP/HTTP port.
      expect((await postOtlp(`http://127.0.0.1:${collector.otlp.port}/v1/traces`, JSON.stringify(viaGrpc.body))).status).toBe(200);
      const records = await readTopic(kafka.brokers, spansTopic, 2);
      const batch = (traceId: string): TraceBatch => {
        const m = records.find((r) => r.key?.toString() === traceId);
        if (!m) throw new Error(`no span record for ${traceId}`);
        const parsed = parseTraceBatch(m.value!);
        if (typeof parsed === 'string') throw new Error(parsed);
        return parsed;
      };
      const shape = (b: TraceBatch) => b.spans.map((sp) => ({ name: sp.name, attributes: sp.attributes, resource: sp.resource })).sort((x, y) => x.name.localeCompare(y.name));
      const a = batch(viaKafka.traceId);
      const b = batch(viaGrpc.traceId);
      expect(shape(a)).toEqual(shape(b));
      const text = JSON.stringify(a);
      expect(text).not.toContain(EMAIL);
      expect(text).not.toContain(SESSION);
      expect(a.spans.find((sp) => sp.attributes['session.id'] !== undefined)?.attributes['session.id']).toMatch(/^k1_[0-9a-f]+$/);
      expect(metricValue(await collector.pipeline.instruments.registry.metrics(), 'ragwatch_ingest_requests_total', { transport: 'kafka', reason: 'ok' })).toBe(1);
    } finally {
      await exporterCollector.stop();
      await collector.shutdown();
    }
  }, 180_000);

  it('a burst larger than the capture buffer: partitions paused and read again, every trace captured, nothing dropped', async () => {
    const topic = 'otlp_spans_burst';
    await kafka.createTopic(topic, 2);
    const config = loadConfig({
      env: {},
      overrides: {
        server: { otlpPort: 0, otlpGrpcPort: 0, httpPort: 0 },
        metrics: { processMetrics: false },
        sampling: { rate: 1 },
        // Room for ~15 traces of 3 spans; 90 % of it is the pause mark.
        capture: { traceIdleMs: 200, maxBufferedSpans: 45 },
        transport: { kafka: { brokers: kafka.brokers } },
        ingest: { kafka: { enabled: true, groupId: 'burst-otlp', topics: { traces: [topic] }, initialOffset: 'earliest' } },
      },
    });
    const burst = await startApp(config, silentLogger, { judge: new LexicalJudge() });
    const captured: string[] = [];
    burst.pipeline.sinks.add({ onRecord: (_r, t) => void (t && captured.push(t.traceId)) });
    const { ProtobufTraceSerializer } = await import('@opentelemetry/otlp-transformer');
    const producer = new Kafka({ clientId: 'otlp-kafka-test', brokers: kafka.brokers, logLevel: logLevel.NOTHING }).producer();
    const ids: string[] = [];
    try {
      await waitFor(() => burst.pipeline.ready && burst.otlpTopics?.consumer.running, 60_000, 200);
      await producer.connect();
      // 60 traces (180 spans, four times the buffer) on the topic at once, as a backlog after an outage.
      const messages = [];
      for (let i = 0; i < 60; i++) {
        const spans = await ragSpans(1_000 + i);
        ids.push(spans[0]!.spanContext().traceId);
        messages.push({ key: ids.at(-1)!, value: Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!) });
      }
      await producer.send({ topic, messages });
      await waitFor(() => ids.every((id) => captured.includes(id)), 120_000, 200);
      const text = await burst.pipeline.instruments.registry.metrics();
      const count = (reason: string) => metricValue(text, 'ragwatch_ingest_requests_total', { transport: 'kafka', reason }) ?? 0;
      expect(count('saturated')).toBeGreaterThan(0);
      expect(count('ok')).toBe(60);
      expect(metricValue(text, 'ragwatch_dropped_total', { stage: 'capture' }) ?? 0).toBe(0);
      expect(captured.filter((id) => ids.includes(id)).sort()).toEqual([...ids].sort());
    } finally {
      await producer.disconnect();
      await burst.shutdown();
    }
  }, 180_000);

  it('the exporter compressing with snappy, lz4 or zstd: every trace read and captured', async () => {
    const codecs = ['snappy', 'lz4', 'zstd'] as const;
    for (const c of codecs) await kafka.createTopic(`otlp_spans_${c}`, 2);
    const config = loadConfig({
      env: {},
      overrides: {
        server: { otlpPort: 0, otlpGrpcPort: 0, httpPort: 0 },
        metrics: { processMetrics: false },
        sampling: { rate: 1 },
        capture: { traceIdleMs: 200 },
        transport: { kafka: { brokers: kafka.brokers } },
        ingest: { kafka: { enabled: true, groupId: 'codecs-otlp', topics: { traces: codecs.map((c) => `otlp_spans_${c}`) }, initialOffset: 'earliest' } },
      },
    });
    const app2 = await startApp(config, silentLogger, { judge: new LexicalJudge() });
    const captured: string[] = [];
    app2.pipeline.sinks.add({ onRecord: (_r, t) => void (t && captured.push(t.traceId)) });
    try {
      await waitFor(() => app2.pipeline.ready && app2.otlpTopics?.consumer.running, 60_000, 200);
      for (const codec of codecs) {
        const exporter = await startCollector(`
receivers:
  otlp:
    protocols:
      http: {endpoint: "127.0.0.1:\${env:OTLP_HTTP_PORT}"}
processors:
  batch: {timeout: 200ms}
exporters:
  kafka:
    brokers: [${kafka.brokers.map((b) => `"${b}"`).join(', ')}]
    traces: {topic: otlp_spans_${codec}, encoding: otlp_proto}
    producer: {compression: ${codec}}
service:
  pipelines:
    traces: {receivers: [otlp], processors: [batch], exporters: [kafka]}
`);
        try {
          const ids: string[] = [];
          for (let i = 0; i < 3; i++) {
            // Repetitive text, as real spans are: the batch compresses (a codec that only stores would prove little).
            const { body, traceId } = openInferenceTrace({ query: `What does the ${codec} vault ${i} hold?`, documents: [{ id: `${codec}-${i}`, content: `The ${codec} vault ${i} holds gold bars. `.repeat(20) }], response: `The ${codec} vault ${i} holds gold bars.`, service: 'rag-codecs' });
            expect((await postOtlp(`http://127.0.0.1:${exporter.ports.otlpHttp}/v1/traces`, JSON.stringify(body))).status).toBe(200);
            ids.push(traceId);
          }
          await waitFor(() => ids.every((id) => captured.includes(id)), 60_000, 200);
        } finally {
          await exporter.stop();
        }
      }
      const text = await app2.pipeline.instruments.registry.metrics();
      expect(metricValue(text, 'ragwatch_ingest_requests_total', { transport: 'kafka', reason: 'invalid' }) ?? 0).toBe(0);
      expect(new Set(captured).size).toBe(9);
    } finally {
      await app2.shutdown();
    }
  }, 180_000);
});

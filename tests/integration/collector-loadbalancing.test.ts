/**
 * The OpenTelemetry Collector's contrib `loadbalancing` exporter (routing_key traceID, static resolver)
 * in front of two `ragwatch collector` processes on a real Kafka broker, as docs/ingest.md describes it:
 * the exporter speaks OTLP/gRPC (gzip, the bearer token in `protocol.otlp.headers`) to each collector's
 * gRPC port. Every trace is sent as two OTLP requests (retriever half, LLM half), so a trace split across
 * collectors would show. Split mode (spans topic → `ragwatch assembler`): one triplet per trace, scored
 * once, both collectors used. Local assembly in each collector: still one complete triplet per trace and
 * no incomplete generation — which only routing by trace id gives.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScoreRecord } from '../../src/triplet.ts';
import { haveKafka, startKafkaCluster, type KafkaTestCluster } from '../helpers/kafka-broker.ts';
import { haveCollector, startCollector, type RunningCollector } from '../helpers/otel-collector.ts';
import { openInferenceTrace, postOtlp } from '../helpers/otlp.ts';
import { freePort, waitFor } from '../helpers/process.ts';
import { readTopic, roleConfig, scrape, startRole, type RoleProcess, type TopicReader } from './kafka-process.ts';

const TOKEN = 'collector-lb-token-0123456789';
const N = 20;

type Body = { resourceSpans: Array<{ resource: unknown; scopeSpans: Array<{ scope: unknown; spans: Array<{ name: string }> }> }> };

/** One RAG trace as two OTLP/JSON requests: [root + retriever, LLM]. */
function halves(i: number, tag: string): { traceId: string; parts: [string, string] } {
  const { body, traceId } = openInferenceTrace({
    query: `What is item ${tag}-${i}?`,
    documents: [{ id: `d${i}`, content: `Item ${tag}-${i} is a blue widget made in 2021.` }],
    response: `Item ${tag}-${i} is a blue widget.`,
    service: 'rag-lb',
    startMs: Date.now() - 3_000,
  });
  const rs = (body as unknown as Body).resourceSpans[0]!;
  const part = (keep: (name: string) => boolean) => JSON.stringify({ resourceSpans: [{ resource: rs.resource, scopeSpans: [{ scope: rs.scopeSpans[0]!.scope, spans: rs.scopeSpans[0]!.spans.filter((s) => keep(s.name)) }] }] });
  return { traceId, parts: [part((n) => n !== 'ChatCompletion'), part((n) => n === 'ChatCompletion')] };
}

/** The Collector of docs/ingest.md: loadbalancing by trace id over two ragwatch collectors' gRPC ports. */
const lbConfig = (ports: number[]) => `
receivers:
  otlp:
    protocols:
      http: {endpoint: "127.0.0.1:\${env:OTLP_HTTP_PORT}"}
exporters:
  loadbalancing:
    routing_key: traceID
    protocol:
      otlp:
        tls: {insecure: true}
        compression: gzip
        headers: {authorization: "Bearer ${TOKEN}"}
    resolver:
      static: {hostnames: [${ports.map((p) => `"127.0.0.1:${p}"`).join(', ')}]}
service:
  pipelines:
    traces: {receivers: [otlp], exporters: [loadbalancing]}
`;

const ok = haveCollector('collector-loadbalancing') && haveKafka('collector-loadbalancing');

describe.skipIf(!ok)('Collector loadbalancing (traceID) → two ragwatch collectors → Kafka → scored once', () => {
  let kafka: KafkaTestCluster;
  let scorer: RoleProcess;
  let scores: TopicReader;
  let base: Record<string, unknown>;
  const procs: RoleProcess[] = [];
  const collectors: RunningCollector[] = [];

  beforeAll(async () => {
    kafka = await startKafkaCluster({ nodes: 1 });
    base = roleConfig(kafka.brokers, `lb-${randomUUID().slice(0, 8)}`);
    const topics = (base.transport as { kafka: { topics: Record<string, string> } }).kafka.topics;
    for (const t of ['spans', 'triplets', 'scores', 'dlq'] as const) await kafka.createTopic(topics[t]!, 4);
    // Both halves of a trace reach the assembler apart: idle time with margin.
    base.capture = { traceIdleMs: 1_000 };
    scorer = await startRole('scorer', base);
    procs.push(scorer);
    scores = await readTopic(kafka.brokers, topics.scores!);
    await waitFor(async () => (await fetch(`${scorer.apiUrl}/readyz`)).status === 200, 90_000, 200);
  }, 240_000);

  afterAll(async () => {
    for (const c of collectors) await c.stop();
    await scores?.stop();
    for (const p of procs) await p.cleanup();
    await kafka?.stop();
  });

  /** Two ragwatch collectors (gRPC on ports of their own, the bearer token required) and the loadbalancing Collector in front. */
  async function front(assembly: 'spans_topic' | 'local'): Promise<{ url: string; ragwatch: RoleProcess[] }> {
    const ports = [await freePort(), await freePort()];
    const ragwatch = await Promise.all(
      ports.map((p) => {
        const server = { ...(base.server as object), otlpGrpcPort: p, bearerToken: TOKEN };
        const transport = base.transport as { kafka: Record<string, unknown> };
        return startRole('collector', { ...base, server, transport: { ...transport, kafka: { ...transport.kafka, assembly } } });
      }),
    );
    procs.push(...ragwatch);
    const otelcol = await startCollector(lbConfig(ports));
    collectors.push(otelcol);
    return { url: `http://127.0.0.1:${otelcol.ports.otlpHttp}/v1/traces`, ragwatch };
  }

  async function sendHalves(url: string, tag: string): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < N; i++) {
      const { traceId, parts } = halves(i, tag);
      for (const part of i % 2 === 0 ? parts : [parts[1], parts[0]]) {
        const res = await postOtlp(url, part);
        expect(res.status).toBe(200);
      }
      ids.push(traceId);
    }
    return ids;
  }

  const recordsOf = (ids: string[]) => {
    const want = new Set(ids);
    return scores.messages.map((m) => JSON.parse(String(m.value)) as ScoreRecord).filter((r) => want.has(r.traceId));
  };

  it('split mode: one triplet per trace, scored once, spread over both collectors', async () => {
    const assembler = await startRole('assembler', base);
    procs.push(assembler);
    await waitFor(async () => (await fetch(`${assembler.apiUrl}/readyz`)).status === 200, 90_000, 200);
    const { url, ragwatch } = await front('spans_topic');
    const ids = await sendHalves(url, 'split');
    await waitFor(() => new Set(recordsOf(ids).map((r) => r.traceId)).size === N, 120_000, 250);
    await new Promise((r) => setTimeout(r, 2_000));
    const records = recordsOf(ids);
    expect(records.map((r) => r.traceId).sort()).toEqual([...ids].sort());
    // Both collectors were routed to, received over gRPC with the token, and forwarded every span.
    const perCollector = await Promise.all(ragwatch.map((p) => scrape(p.apiUrl, 'ragwatch_spans_forwarded_total')));
    for (const n of perCollector) expect(n).toBeGreaterThan(0);
    expect(perCollector.reduce((a, b) => a + b, 0)).toBe(3 * N);
    for (const p of ragwatch) expect(await scrape(p.apiUrl, 'ragwatch_ingest_requests_total', { transport: 'grpc', reason: 'unauthorized' })).toBe(0);
    expect(await scrape(assembler.apiUrl, 'ragwatch_triplets_incomplete_total')).toBe(0);
  }, 240_000);

  it('local assembly behind trace-id routing: every trace complete in one collector, scored once', async () => {
    const { url, ragwatch } = await front('local');
    const ids = await sendHalves(url, 'local');
    await waitFor(() => new Set(recordsOf(ids).map((r) => r.traceId)).size === N, 120_000, 250);
    await new Promise((r) => setTimeout(r, 2_000));
    expect(recordsOf(ids).map((r) => r.traceId).sort()).toEqual([...ids].sort());
    const captured = await Promise.all(ragwatch.map((p) => scrape(p.apiUrl, 'ragwatch_triplets_captured_total')));
    for (const n of captured) expect(n).toBeGreaterThan(0);
    expect(captured.reduce((a, b) => a + b, 0)).toBe(N);
    // A trace cut in two by the routing would be an incomplete generation in the collector with the LLM half.
    for (const p of ragwatch) expect(await scrape(p.apiUrl, 'ragwatch_triplets_incomplete_total')).toBe(0);
  }, 240_000);
});

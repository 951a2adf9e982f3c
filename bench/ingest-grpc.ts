/**
 * ingest_grpc_ratio_vs_http_protobuf: spans per second through the OTLP/gRPC server against the
 * OTLP/HTTP server with protobuf bodies, in the same run over loopback, the same bodies (real SDK
 * spans, 20 RAG traces a body), the same admission guard and sink (capture), 4 requests in flight —
 * the cost of the transport itself. Target ≥ 0.7 (issue 38).
 */
import * as grpc from '@grpc/grpc-js';
import { Capture } from '../src/capture/capture.ts';
import { defaultConfig } from '../src/config/load.ts';
import { startIngestServers } from '../src/roles/ingest-servers.ts';
import { createInstruments } from '../src/telemetry/instruments.ts';
import { emit, median, QUICK } from './lib.ts';
import { otlpBodyMaker, SPANS_PER_TRACE, TRACES_PER_BODY } from './otlp-bodies.ts';

const BODIES = QUICK ? 200 : 600;
const ROUNDS = QUICK ? 3 : 5;
const IN_FLIGHT = 4;

const config = defaultConfig();
const capture = new Capture({ config: { ...config.capture, maxTraces: 1_000_000, traceIdleMs: 3_600_000 }, instruments: createInstruments({ processMetrics: false }), onTriplet: () => undefined });
let spans = 0;
const servers = await startIngestServers({ ...config.server, otlpPort: 0, otlpGrpcPort: 0, maxEventLoopDelayMs: 0, maxConcurrentRequests: 64 }, {
  onSpans: (s) => {
    spans += s.length;
    capture.addSpans(s, 'otlp');
  },
  onLogs: () => undefined,
  onOutcome: () => undefined,
});
const body = otlpBodyMaker();
const Client = grpc.makeGenericClientConstructor({ Export: { path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export', requestStream: false, responseStream: false, requestSerialize: (b: Buffer) => b, requestDeserialize: (b: Buffer) => b, responseSerialize: (b: Buffer) => b, responseDeserialize: (b: Buffer) => b } }, 'Export');
const client = new Client(`127.0.0.1:${servers.grpc!.port}`, grpc.credentials.createInsecure()) as unknown as grpc.Client & { Export(req: Buffer, cb: (err: grpc.ServiceError | null) => void): void };
const viaGrpc = (b: Buffer) => new Promise<void>((resolve, reject) => client.Export(b, (err) => (err ? reject(err) : resolve())));
const httpUrl = `http://127.0.0.1:${servers.http.port}/v1/traces`;
const viaHttp = async (b: Buffer) => {
  const res = await fetch(httpUrl, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body: b });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
};

/** Milliseconds to send `bodies` with IN_FLIGHT requests at a time. */
async function timed(send: (b: Buffer) => Promise<void>, bodies: Buffer[]): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < bodies.length) await send(bodies[next++]!);
  }));
  const ms = performance.now() - t0;
  await capture.forceFlush();
  return ms;
}

const grpcMs: number[] = [];
const httpMs: number[] = [];
// Warm both paths (JIT, connections).
await timed(viaGrpc, Array.from({ length: 20 }, () => body().protobuf));
await timed(viaHttp, Array.from({ length: 20 }, () => body().protobuf));
for (let r = 0; r < ROUNDS; r++) {
  // Fresh trace ids every time: re-sent spans would be duplicates.
  httpMs.push(await timed(viaHttp, Array.from({ length: BODIES }, () => body().protobuf)));
  grpcMs.push(await timed(viaGrpc, Array.from({ length: BODIES }, () => body().protobuf)));
}
client.close();
await servers.close();
await capture.shutdown();
const expected = (2 * 20 + 2 * ROUNDS * BODIES) * TRACES_PER_BODY * SPANS_PER_TRACE;
if (spans !== expected) throw new Error(`received ${spans} spans, expected ${expected}`);
const rate = (ms: number[]) => (BODIES * TRACES_PER_BODY * SPANS_PER_TRACE) / (median(ms) / 1000);
console.error(`ingest: OTLP/gRPC ${Math.round(rate(grpcMs))} spans/s, OTLP/HTTP protobuf ${Math.round(rate(httpMs))} spans/s (${IN_FLIGHT} in flight, ${BODIES} bodies × ${ROUNDS} rounds)`);
emit({ bench: 'ingest', figure: 'ingest_grpc_ratio_vs_http_protobuf', value: rate(grpcMs), unit: 'spans/s', baseline: rate(httpMs), ratio: rate(grpcMs) / rate(httpMs) });

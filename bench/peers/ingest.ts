/**
 * The ingest half of the peer bench: the same OTLP/HTTP protobuf RAG traces sent to `phoenix serve`
 * (its SQLite store) and to `ragwatch start` (capture only: `sampling.rate: 0`, nothing judged, as
 * Phoenix judges nothing on ingest), one server after the other on the same machine.
 *
 * Burst: every body sent as fast as the server accepts it (4 requests in flight, `--in-flight`; a refused body — 503,
 * 429 — is sent again after 50 ms), then the time from the last accepted send until the last trace is
 * visible (Phoenix: its REST span search finds every span of the last bodies; ragwatch: its triplet
 * counter reaches the trace count). CPU seconds of the server's process tree from /proc, peak RSS of the
 * tree sampled every 250 ms. Fixed rate: a fresh server, the same traces at a rate both hold.
 */
import { context, trace } from '@opentelemetry/api';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPhoenix } from '../../tests/helpers/phoenix.ts';
import { freePort, metricValue, spawnRagwatch, waitFor } from '../../tests/helpers/process.ts';
import { cpuSeconds, rssMb, rssSampler } from './proc.ts';

/** Spans per trace: chain root, retriever (5 chunks), LLM (prompt and answer). */
const SPANS_PER_TRACE = 3;
const TRACES_PER_BODY = 20;
/** Burst requests in flight by default (`--in-flight`). */
export const IN_FLIGHT = 4;

/** One body: its protobuf bytes and its trace ids (hex). */
interface Body {
  protobuf: Buffer;
  traceIds: string[];
}

const WORDS = 'the a of in station tower river council built century records museum archive library bridge harbour railway opened closed restored report annual census district province northern southern eastern western founded merged company published edition journal'.split(' ');

/** A chunk of ≈ `chars` characters of prose-like text, distinct per (trace, chunk). */
function chunk(seed: number, chars: number): string {
  let s = '';
  let x = (seed * 2654435761) >>> 0;
  while (s.length < chars) {
    x = (x * 1103515245 + 12345) >>> 0;
    s += `${WORDS[x % WORDS.length]}${x % 11 === 0 ? `. In ${1800 + (x % 220)}` : ''} `;
  }
  return `${s.slice(0, chars - 1).trim()}.`;
}

/** Bodies of RAG traces (real SDK spans, OpenInference attributes) holding `spans` spans in all. */
export function ragBodies(spans: number): Body[] {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const tracer = provider.getTracer('peer-bench');
  const bodies: Body[] = [];
  let n = 0;
  while (n * SPANS_PER_TRACE < spans) {
    exporter.reset();
    for (let t = 0; t < TRACES_PER_BODY && n * SPANS_PER_TRACE < spans; t++, n++) {
      const question = `What does record ${n} say about the ${WORDS[n % WORDS.length]} of the district?`;
      const root = tracer.startSpan('rag.request', { attributes: { 'openinference.span.kind': 'CHAIN', 'input.value': question, 'http.route': '/ask' } });
      const ctx = trace.setSpan(context.active(), root);
      const r = tracer.startSpan('retrieve', { attributes: { 'openinference.span.kind': 'RETRIEVER', 'input.value': question } }, ctx);
      const docs = Array.from({ length: 5 }, (_, d) => chunk(n * 5 + d, 800));
      docs.forEach((content, d) => {
        r.setAttribute(`retrieval.documents.${d}.document.content`, content);
        r.setAttribute(`retrieval.documents.${d}.document.id`, `doc-${n}-${d}`);
        r.setAttribute(`retrieval.documents.${d}.document.score`, 0.9 - d / 10);
      });
      r.end();
      const answer = `${chunk(n + 7_000_000, 300)} (record ${n})`;
      const l = tracer.startSpan('ChatCompletion', {
        attributes: {
          'openinference.span.kind': 'LLM',
          'llm.model_name': 'gpt-4o-mini',
          'llm.input_messages.0.message.role': 'system',
          'llm.input_messages.0.message.content': 'Answer only from the provided context.',
          'llm.input_messages.1.message.role': 'user',
          'llm.input_messages.1.message.content': `Context:\n${docs.join('\n')}\n\nQuestion: ${question}`,
          'llm.output_messages.0.message.role': 'assistant',
          'llm.output_messages.0.message.content': answer,
          'llm.token_count.prompt': 1100,
          'llm.token_count.completion': 70,
        },
      }, ctx);
      l.end();
      root.end();
    }
    const finished = exporter.getFinishedSpans();
    bodies.push({ protobuf: Buffer.from(ProtobufTraceSerializer.serializeRequest(finished)!), traceIds: [...new Set(finished.map((s) => s.spanContext().traceId))] });
  }
  return bodies;
}

/** A server under test: where it takes OTLP, its process, how to ask whether traces are visible, how to stop it. */
interface Server {
  tool: 'ragwatch' | 'phoenix';
  otlpUrl: string;
  pid: number;
  /** True once every one of these traces (and, for ragwatch, `total` triplets) is visible. */
  visible(traceIds: string[], total: number): Promise<boolean>;
  stop(): Promise<void>;
}

async function startRagwatchServer(): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'rw-peers-'));
  const config = join(dir, 'ragwatch.yaml');
  // Capture only, as Phoenix does on ingest; the embedded judge is still loaded (ragwatch start's default).
  writeFileSync(config, `sampling:\n  rate: 0\njudge:\n  kind: embedded\nstore:\n  dataDir: ${join(dir, 'data')}\n`);
  const [otlpPort, grpcPort, httpPort] = [await freePort(), await freePort(), await freePort()];
  const proc = spawnRagwatch(['start', '-c', config], { RAGWATCH_OTLP_PORT: String(otlpPort), RAGWATCH_OTLP_GRPC_PORT: String(grpcPort), RAGWATCH_HTTP_PORT: String(httpPort), RAGWATCH_LOG_LEVEL: 'warn' });
  const http = `http://127.0.0.1:${httpPort}`;
  await waitFor(async () => (await fetch(`${http}/readyz`)).status === 200, 60_000);
  return {
    tool: 'ragwatch',
    otlpUrl: `http://127.0.0.1:${otlpPort}/v1/traces`,
    pid: proc.child.pid!,
    visible: async (_ids, total) => (metricValue(await (await fetch(`${http}/metrics`)).text(), 'ragwatch_triplets_captured_total') ?? 0) >= total,
    stop: async () => {
      proc.child.kill('SIGKILL');
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function startPhoenixServer(venv: string): Promise<Server> {
  const phoenix = await startPhoenix(venv);
  return {
    tool: 'phoenix',
    otlpUrl: `${phoenix.url}/v1/traces`,
    pid: phoenix.pid,
    visible: async (ids) => {
      const q = ids.map((id) => `trace_id=${id}`).join('&');
      const res = await fetch(`${phoenix.url}/v1/projects/default/spans/otlpv1?limit=1000&${q}`);
      if (!res.ok) return false;
      const body = (await res.json()) as { data?: unknown[] };
      return (body.data?.length ?? 0) >= ids.length * SPANS_PER_TRACE;
    },
    stop: () => phoenix.stop(),
  };
}

/** Starts one tool's server. */
export function startServer(tool: 'ragwatch' | 'phoenix', phoenixVenv: string): Promise<Server> {
  return tool === 'ragwatch' ? startRagwatchServer() : startPhoenixServer(phoenixVenv);
}

async function post(url: string, body: Buffer): Promise<number> {
  try {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

/** What the burst measured. */
export interface BurstResult {
  spansPerS: number;
  cpuSPer10kSpans: number;
  peakRssMb: number;
  baseRssMb: number;
  visibleAfterS: number;
  /** Refused sends by status (0: no answer), each sent again. */
  refused: Record<number, number>;
  /** CPU share of the idle server in the 3 s before the burst (background work it does anyway). */
  idleCpuShare: number;
}

/** Sends every body as fast as `server` accepts them (`inFlight` requests at once); then waits until the last trace is visible. */
export async function burst(server: Server, bodies: Body[], spans: number, inFlight = IN_FLIGHT): Promise<BurstResult> {
  const idle0 = cpuSeconds(server.pid);
  await new Promise((r) => setTimeout(r, 3000));
  const idleCpuShare = (cpuSeconds(server.pid) - idle0) / 3;
  const baseRssMb = rssMb(server.pid);
  const rss = rssSampler(server.pid);
  const cpu0 = cpuSeconds(server.pid);
  const t0 = performance.now();
  let next = 0;
  const refused: Record<number, number> = {};
  const lastBodies: Body[] = [];
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++]!;
        for (;;) {
          const status = await post(server.otlpUrl, body.protobuf);
          if (status >= 200 && status < 300) break;
          refused[status] = (refused[status] ?? 0) + 1;
          await new Promise((r) => setTimeout(r, 50));
        }
        lastBodies.push(body);
      }
    }),
  );
  const sentS = (performance.now() - t0) / 1000;
  const tSent = performance.now();
  // The last traces accepted: the bodies of the last round of requests in flight.
  const lastIds = lastBodies.slice(-inFlight).flatMap((b) => b.traceIds);
  const totalTraces = bodies.reduce((n, b) => n + b.traceIds.length, 0);
  await waitFor(() => server.visible(lastIds, totalTraces), 600_000, 200);
  const visibleAfterS = (performance.now() - tSent) / 1000;
  const cpu = cpuSeconds(server.pid) - cpu0;
  return { spansPerS: spans / sentS, cpuSPer10kSpans: (cpu / spans) * 10_000, peakRssMb: rss.stop(), baseRssMb, visibleAfterS, refused, idleCpuShare };
}

/** What the fixed rate measured. */
export interface FixedRateResult {
  spansPerS: number;
  cpuSPerS: number;
  cpuShare: number;
  peakRssMb: number;
  endRssMb: number;
  late: number;
}

/** Sends bodies at `spansPerS` for `seconds` (one body per tick, up to 4 in flight; a tick with 4 still in flight is skipped and counted late). */
export async function fixedRate(server: Server, bodies: Body[], spansPerS: number, seconds: number): Promise<FixedRateResult> {
  const spansPerBody = TRACES_PER_BODY * SPANS_PER_TRACE;
  const intervalMs = (1000 * spansPerBody) / spansPerS;
  const ticks = Math.round((seconds * 1000) / intervalMs);
  const rss = rssSampler(server.pid);
  const cpu0 = cpuSeconds(server.pid);
  const t0 = performance.now();
  let inFlight = 0;
  let late = 0;
  let accepted = 0;
  const pending: Array<Promise<void>> = [];
  for (let i = 0; i < ticks; i++) {
    const due = t0 + i * intervalMs;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    if (inFlight >= IN_FLIGHT) {
      late++;
      continue;
    }
    inFlight++;
    const body = bodies[i % bodies.length]!;
    pending.push(
      post(server.otlpUrl, body.protobuf).then((status) => {
        inFlight--;
        if (status >= 200 && status < 300) accepted += spansPerBody;
      }),
    );
  }
  await Promise.all(pending);
  const wallS = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(server.pid) - cpu0;
  return { spansPerS: accepted / wallS, cpuSPerS: cpu / wallS, cpuShare: cpu / wallS, peakRssMb: rss.stop(), endRssMb: rssMb(server.pid), late };
}
